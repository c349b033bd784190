// What this browser remembers of the lessons, with no account: for each lesson the step reached
// and whether it was finished (localStorage "liarsdice:learn"). The /learn list shows it, the
// lesson page resumes from it.

const KEY = "liarsdice:learn";

function readAll() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

function writeAll(all) {
  try {
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    /* private mode: the progress lasts as long as the page */
  }
}

/** {step, done} of one lesson: `step` the number of the step to take next (1 at the start). */
export function progressOf(lesson) {
  const p = readAll()[lesson] || {};
  const step = Number.isInteger(p.step) && p.step >= 1 ? p.step : 1;
  return { step, done: p.done === true };
}

/** Remember that `lesson` reached step `step` (and whether it is done; being done stays). */
export function saveProgress(lesson, step, done = false) {
  const all = readAll();
  const was = all[lesson] || {};
  all[lesson] = { step, done: done || was.done === true };
  writeAll(all);
}
