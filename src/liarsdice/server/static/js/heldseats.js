// The account page: offer the account the seats this browser holds (common.js `seats`), so that
// a guest who signs up or signs in mid-game finds their table under "Your tables" (on any
// device). The server keeps only seats whose token is still the seat's own
// (routes/heldseats.py); if it kept any new one, the page shows them.
import { seats } from "./common.js";

const section = document.getElementById("tables-card");
const held = seats
  .all()
  .filter((s) => Number.isInteger(s.seat))
  .slice(0, 50)
  .map((s) => ({ code: s.code, seat: s.seat, token: s.token }));
if (section && held.length) {
  fetch("/account/seats/held", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": section.dataset.csrf },
    body: JSON.stringify({ seats: held }),
    credentials: "same-origin",
  })
    .then((res) => (res.ok ? res.json() : null))
    .then((answer) => {
      if (answer && answer.added > 0) location.reload();
    })
    .catch(() => {
      /* offline: the seats stay in this browser, offered again next time */
    });
}
