// The table's sounds: dice, a bid, a challenge and a reveal, made by WebAudio as they play (no
// audio files). Off until the person turns them on; the choice is the browser's (localStorage).

import { $, prefs } from "./common.js";

let ctx = null; // made at the first sound after the person turned sound on (a click allows it)

/** Wire the toggle: its pressed state and words follow the remembered choice. */
export function bindSound() {
  const toggle = $("#sound-toggle");
  if (!toggle) return;
  const show = () => {
    toggle.setAttribute("aria-pressed", prefs.sound ? "true" : "false");
    toggle.textContent = prefs.sound ? "Sound on" : "Sound off";
  };
  toggle.addEventListener("click", () => {
    prefs.sound = !prefs.sound;
    show();
    if (prefs.sound) play("bid"); // what it will sound like, and the click lets the audio start
  });
  window.addEventListener("storage", (event) => {
    if (event.key === "liarsdice:sound" || event.key === null) show();
  });
  show();
}

function audio() {
  if (!ctx) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    ctx = new Context();
  }
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
}

/** A short tone: `freq` Hz gliding to `to`, `length` seconds, starting `at` seconds from now. */
function tone(a, { freq, to = freq, length, at = 0, type = "sine", gain = 0.15 }) {
  const start = a.currentTime + at;
  const osc = a.createOscillator();
  const amp = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  osc.frequency.exponentialRampToValueAtTime(to, start + length);
  amp.gain.setValueAtTime(gain, start);
  amp.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(amp).connect(a.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

/** A burst of noise, as dice rattling in a cup. */
function rattle(a, at, length) {
  const buffer = a.createBuffer(1, Math.ceil(a.sampleRate * length), a.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) * (i % 900 < 300 ? 1 : 0.2);
  const source = a.createBufferSource();
  const amp = a.createGain();
  source.buffer = buffer;
  amp.gain.value = 0.2;
  source.connect(amp).connect(a.destination);
  source.start(a.currentTime + at);
}

const SOUNDS = {
  roll: (a) => rattle(a, 0, 0.35),
  bid: (a) => tone(a, { freq: 660, to: 880, length: 0.09, type: "triangle" }),
  challenge: (a) => {
    tone(a, { freq: 330, to: 220, length: 0.18, type: "square", gain: 0.08 });
    tone(a, { freq: 247, to: 165, length: 0.22, at: 0.12, type: "square", gain: 0.08 });
  },
  reveal: (a) => [523, 659, 784].forEach((f, i) => tone(a, { freq: f, length: 0.16, at: i * 0.09 })),
};

/** Play the sounds `kinds` names, in order, if sound is on; nothing at all if it is off. */
export function play(...kinds) {
  if (!prefs.sound || !kinds.length) return;
  const a = audio();
  if (!a) return;
  kinds.forEach((kind, i) => setTimeout(() => SOUNDS[kind]?.(a), i * 220));
}
