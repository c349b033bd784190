// Each seat's standing over a game, as the best bot sees it (the analysis's `standing`), drawn as
// inline SVG: one line a seat, a faint line where each round starts, a mark where the replay is.
// Every point of the game is a target: clicking it (or Enter on it) picks its step.

const SVG = "http://www.w3.org/2000/svg";
const W = 640;
const H = 220;
const PAD = { left: 38, right: 10, top: 12, bottom: 24 };

function el(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== null && value !== undefined) node.setAttribute(key, String(value));
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

/** The colour of seat `i` (css/analysis.css: --seat-0 ... --seat-7, light and dark). */
export function seatColour(i) {
  return `var(--seat-${i % 8})`;
}

/**
 * Draw `standing` ([{step, round, values, kind}]) of `seats` into `box` (emptied first).
 * `label(point)` names a point for people (its round and move); `pick(step)` is called when one
 * is clicked. Returns `mark(step)`, which shows where the replay is (the last point at or before it).
 */
export function drawStandingChart(box, { seats, standing, unit, label, pick }) {
  box.replaceChildren();
  const n = standing.length;
  if (!n) return () => {};
  const win = standing[0].kind === "win";
  const top = win ? 1 : Math.max(1, ...standing.flatMap((p) => p.values.filter(Number.isFinite)));
  const x = (i) => PAD.left + (n === 1 ? 0.5 : i / (n - 1)) * (W - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - Math.max(0, Math.min(top, v)) / top) * (H - PAD.top - PAD.bottom);
  const what = win ? "chance of winning" : `expected ${unit === "chips" ? "chips" : "dice"}`;
  const svg = el("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "standing-chart",
    role: "group",
    "aria-label": `Each seat's ${what} over the game, as the best bot sees it: pick a point to go to it`,
  });
  // The scale: the bottom, the middle and the top.
  for (const v of [0, top / 2, top]) {
    svg.appendChild(el("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }));
    const text = el("text", { x: PAD.left - 6, y: y(v) + 4, class: "axis", "text-anchor": "end" });
    text.textContent = win ? `${Math.round(v * 100)}%` : String(Math.round(v * 10) / 10);
    svg.appendChild(text);
  }
  // Where each round starts.
  standing.forEach((p, i) => {
    if (i > 0 && p.round === standing[i - 1].round) return;
    svg.appendChild(el("line", { x1: x(i), x2: x(i), y1: PAD.top, y2: H - PAD.bottom, class: "round-line" }));
    const text = el("text", { x: x(i) + 3, y: H - 8, class: "axis" });
    text.textContent = `R${p.round}`;
    svg.appendChild(text);
  });
  seats.forEach((_, s) => {
    const points = standing.map((p, i) => (Number.isFinite(p.values[s]) ? `${x(i).toFixed(1)},${y(p.values[s]).toFixed(1)}` : null)).filter(Boolean);
    svg.appendChild(el("polyline", { points: points.join(" "), class: "seat-line", stroke: seatColour(s), "data-seat": s }));
  });
  const cursor = el("line", { y1: PAD.top, y2: H - PAD.bottom, class: "cursor", visibility: "hidden" });
  svg.appendChild(cursor);
  const dots = el("g", { class: "dots" });
  svg.appendChild(dots);
  // The targets, one a point: as wide as the gap between points, as tall as the chart.
  const gap = n > 1 ? (W - PAD.left - PAD.right) / (n - 1) : W - PAD.left - PAD.right;
  standing.forEach((p, i) => {
    const name = `${label(p)}: ${seats.map((seat, s) => `${seat} ${win ? `${Math.round(p.values[s] * 100)}%` : (p.values[s] ?? 0).toFixed(1)}`).join(", ")}`;
    const left = Math.max(0, x(i) - gap / 2);
    const target = el("rect", {
      x: left,
      y: 0,
      width: Math.min(W, x(i) + gap / 2) - left,
      height: H,
      class: "target",
      tabindex: 0,
      role: "button",
      "aria-label": name,
      "data-step": p.step,
    });
    const title = el("title");
    title.textContent = name;
    target.appendChild(title);
    target.addEventListener("click", () => pick(p.step));
    target.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        pick(p.step);
      }
    });
    svg.appendChild(target);
  });
  box.appendChild(svg);

  return function mark(step) {
    let at = -1;
    standing.forEach((p, i) => {
      if (p.step <= step) at = i;
    });
    dots.replaceChildren();
    if (at < 0) {
      cursor.setAttribute("visibility", "hidden");
      return;
    }
    cursor.setAttribute("x1", x(at));
    cursor.setAttribute("x2", x(at));
    cursor.setAttribute("visibility", "visible");
    seats.forEach((_, s) => {
      const v = standing[at].values[s];
      if (Number.isFinite(v)) dots.appendChild(el("circle", { cx: x(at), cy: y(v), r: 4, fill: seatColour(s), class: "dot" }));
    });
  };
}
