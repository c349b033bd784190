// A player's profile: each family's rating over its rated games, drawn as inline SVG (one chart
// a family). The same numbers are on the page as text ("the rating game by game, as text").

const SVG = "http://www.w3.org/2000/svg";
const W = 640;
const H = 180;
const PAD = { left: 46, right: 12, top: 12, bottom: 22 };

function el(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

/** Draw `points` ([{game, at, rating}], oldest first) of the family titled `title`. */
export function drawRatingChart(points, title) {
  const ratings = points.map((p) => p.rating);
  let low = Math.min(...ratings);
  let high = Math.max(...ratings);
  if (high - low < 100) {
    const middle = (high + low) / 2;
    low = middle - 50;
    high = middle + 50;
  }
  const n = points.length;
  const x = (i) => PAD.left + (n === 1 ? 0.5 : i / (n - 1)) * (W - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - (v - low) / (high - low)) * (H - PAD.top - PAD.bottom);
  const last = ratings[n - 1];
  const svg = el("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "rating-chart",
    role: "img",
    "aria-label": `${title}: the rating over ${n - 1} rated games, from ${ratings[0]} to ${last} (the numbers are in the text below)`,
  });
  for (const v of [low, (low + high) / 2, high]) {
    svg.appendChild(el("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }));
    svg.appendChild(el("text", { x: PAD.left - 6, y: y(v) + 4, class: "axis", "text-anchor": "end" }, String(Math.round(v))));
  }
  const line = points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  svg.appendChild(el("polyline", { points: line, class: "rating-line" }));
  points.forEach((p, i) => {
    const dot = el("circle", { cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 3, class: "rating-dot" });
    dot.appendChild(el("title", {}, p.game ? `After game ${p.game}: ${p.rating}` : `At the start: ${p.rating}`));
    svg.appendChild(dot);
  });
  svg.appendChild(el("text", { x: W - PAD.right, y: H - 6, class: "axis", "text-anchor": "end" }, "rated games →"));
  return svg;
}

function init() {
  const box = document.getElementById("rating-charts");
  if (!box) return;
  let history = {};
  try {
    history = JSON.parse(box.dataset.history || "{}");
  } catch {
    return;
  }
  const titles = new Map([...document.querySelectorAll("#ratings tr[data-family]")].map((row) => [row.dataset.family, row.querySelector("th").textContent.trim()]));
  for (const [family, points] of Object.entries(history)) {
    if (!Array.isArray(points) || points.length < 2) continue;
    const title = titles.get(family) || family;
    const figure = document.createElement("figure");
    figure.className = "rating-figure";
    figure.dataset.family = family;
    const caption = document.createElement("figcaption");
    caption.textContent = `${title}: rating over time`;
    figure.append(caption, drawRatingChart(points, title));
    box.appendChild(figure);
  }
}

init();
