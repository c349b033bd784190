// The new-table form's "Rated" choice (shown only to a signed-in person): a rated table plays its
// preset's own rules, so only the number of players may change; the form says so and locks the
// rest. Bots sit at it only if "Bots may sit at this rated table" is ticked too.

const LOCKED = ["#dice", "#faces"]; // the options a rated table does not let change

function $(selector) {
  return document.querySelector(selector);
}

function rated() {
  return Boolean($("#rated")?.checked);
}

/** Lock or unlock the options and the bots' choice as "Rated" is ticked or not. */
function ratedChanged() {
  const on = rated();
  for (const selector of LOCKED) {
    const input = $(selector);
    if (input) input.disabled = on;
  }
  const more = $("#more-rules");
  if (more) {
    more.hidden = on;
    if (on) more.open = false;
  }
  const bots = $("#bots-rated");
  bots.disabled = !on;
  if (!on) bots.checked = false;
  $("#rated-note").hidden = !on;
  const name = $("#create-name");
  if (on && name) name.value = $("#rated-choice").dataset.account || name.value;
}

/** The table to make, as the form says it: a rated one sends only its number of players. */
export function ratedBody(body) {
  if (!rated()) return body;
  return { ...body, options: { num_players: body.options.num_players }, rated: true, bots_rated: Boolean($("#bots-rated").checked) };
}

/** Whether the new table is to be rated (the form's dice and faces are the preset's then). */
export function isRated() {
  return rated();
}

export function initRatedChoice() {
  const box = $("#rated");
  if (!box) return; // a guest's form: no rated tables
  box.addEventListener("change", ratedChanged);
  ratedChanged();
}
