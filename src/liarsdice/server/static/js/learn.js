// /learn: each lesson with the progress this browser remembers (progress.js): done, the step
// reached, or its number of steps.

import { $ } from "./common.js";
import { progressOf } from "./progress.js";

for (const item of document.querySelectorAll("#lesson-list .lesson-item")) {
  const name = item.dataset.lesson;
  const steps = Number(item.dataset.steps);
  const { step, done } = progressOf(name);
  const label = $(".lesson-progress", item);
  item.classList.toggle("done", done);
  if (done) {
    label.textContent = "✓ Done";
    label.setAttribute("aria-label", "Done");
  } else if (step > 1) {
    label.textContent = `Step ${Math.min(step, steps)} of ${steps}`;
  }
}
