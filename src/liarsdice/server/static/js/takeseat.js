// The page after "Take my seat here" on the account page: keep the seat's new token in this
// browser, as joining a table does (common.js `seats`), then open the table.
import { seats } from "./common.js";

const card = document.getElementById("take-seat");
if (card) {
  const { code, seat, token, name } = card.dataset;
  seats.set(code, { token, seat: Number(seat), name });
  location.replace(`/t/${encodeURIComponent(code)}`);
}
