// @title Calendar (FullCalendar)
// FullCalendar's month grid with the interaction plugin: events can be
// dragged to another day. The calendar's own events (getEvents()) are on
// window.__state.
import { Calendar } from "@fullcalendar/core";
import dayGridPlugin from "@fullcalendar/daygrid";
import interactionPlugin from "@fullcalendar/interaction";

const root = document.getElementById("root");
root.innerHTML = `<h1>Calendar</h1><div id="cal" style="width:760px"></div>`;
const cal = new Calendar(document.getElementById("cal"), {
  plugins: [dayGridPlugin, interactionPlugin],
  initialView: "dayGridMonth",
  initialDate: "2024-05-01",
  timeZone: "UTC",
  editable: true,
  height: 560,
  events: [{ id: "standup", title: "Team standup", start: "2024-05-06" }, { id: "review", title: "Design review", start: "2024-05-14" }],
  eventChange: () => mirror(),
  dateClick: (info) => { picked.push(info.dateStr); mirror(); },
});
const picked = [];
cal.render();
function mirror() {
  window.__state = { events: Object.fromEntries(cal.getEvents().map((e) => [e.title, e.startStr])), picked: [...picked] };
}
mirror();
window.__cal = cal;
