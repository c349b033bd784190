#!/usr/bin/env node
// A Liar's Dice bot for Node: the same play as minimal.py, from docs/bot-protocol.md alone.
// One JSON message per line on stdin, one per line on stdout; stderr goes to the driver's log.
//
//     liarsdice play --humans 0 --bots exec:"node examples/bots/minimal.js",probability
"use strict";

const readline = require("readline");

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function matches(die, face, wild) {
  return die === face || (wild !== null && face !== wild && die === wild);
}

// How many dice are likely to show `face`: mine and the pushed ones exactly, the rest by odds.
function expected(face, view, faces) {
  const wild = view.wild;
  const seen = view.cup.concat(...view.pushed);
  const unseen = view.dice.reduce((a, b) => a + b, 0) - seen.length;
  const chance = (wild === null || face === wild ? 1 : 2) / faces;
  return seen.filter((d) => matches(d, face, wild)).length + unseen * chance;
}

function choose(request, game) {
  const view = request.view;
  const legal = request.legal;
  const faces = game.options.faces;
  const standing = view.standing_bid;
  const doubtful = standing !== null && standing[0] > expected(standing[1], view, faces) + 1;
  const kinds = new Map();
  for (const action of legal) if (!kinds.has(action[0])) kinds.set(action[0], action);

  if (kinds.has("vote")) return ["vote", doubtful ? "doubt" : "believe"];
  const call = () => ["challenge", "accuse", "all_in"].map((k) => kinds.get(k)).find((a) => a !== undefined);
  if (doubtful && call()) return call();
  // Plain bids and claims (no push, no raise): the one the odds back most, lowest on a tie.
  let best = null;
  let bestMargin = null;
  for (const action of legal) {
    if ((action[0] === "bid" || action[0] === "claim") && action.length === 3) {
      const margin = expected(action[2], view, faces) - action[1];
      if (bestMargin === null || margin > bestMargin) {
        best = action;
        bestMargin = margin;
      }
    }
  }
  if (best !== null && bestMargin > -1) return best;
  return call() || best || legal[0];
}

let game = null;
const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ type: "hello", protocol: 1, name: "minimal-js", author: "liarsdice examples" });
      break;
    case "new_game":
      game = message;
      break;
    case "act":
      send({ type: "action", id: message.id, action: choose(message, game) });
      break;
    case "refused":
      console.error(`refused: ${message.reason}`);
      break;
    case "quit":
      lines.close();
      break;
    default: // game_over, and any message type added later, needs no answer
  }
});
lines.on("close", () => process.exit(0));
