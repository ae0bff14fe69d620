// @title Stock (Tabulator)
// Tabulator with an input editor on the Qty column (a click on the cell
// opens it); the table's own data (table.getData()) is on window.__state.
import { TabulatorFull as Tabulator } from "tabulator-tables";
import "tabulator-tables/dist/css/tabulator.min.css";

const root = document.getElementById("root");
root.innerHTML = `<h1>Stock</h1><div id="table" style="width:520px"></div>`;
const table = new Tabulator("#table", {
  data: [
    { id: 1, item: "Bolts", qty: 10 },
    { id: 2, item: "Nuts", qty: 25 },
    { id: 3, item: "Washers", qty: 7 },
  ],
  layout: "fitColumns",
  columns: [
    { title: "Item", field: "item" },
    { title: "Qty", field: "qty", editor: "input" },
  ],
});
window.__state = { rows: [], built: false };
const mirror = () => { window.__state = { rows: table.getData().map((r) => ({ ...r })), built: true }; };
table.on("tableBuilt", mirror);
table.on("cellEdited", mirror);
window.__table = table;
