// @title Invoices (AG Grid)
// AG Grid Community with editable cells: a printable key on a selected cell
// opens the cell's editor with that key as its first character. The grid's
// own row data (api.forEachNode) is mirrored on window.__state.
import { AllCommunityModule, ModuleRegistry, createGrid } from "ag-grid-community";

ModuleRegistry.registerModules([AllCommunityModule]);
const root = document.getElementById("root");
root.innerHTML = `<h1>Invoices</h1><div id="grid" style="height:220px;width:620px"></div>`;
const rows = [
  { invoice: "INV-1", customer: "Acme", amount: 300, status: "Open" },
  { invoice: "INV-2", customer: "Globex", amount: 450, status: "Open" },
  { invoice: "INV-3", customer: "Initech", amount: 975, status: "Open" },
];
function mirror() {
  const data = [];
  api.forEachNode((n) => data.push({ ...n.data }));
  window.__state = { rows: data, edits: (window.__state?.edits ?? 0) };
}
const api = createGrid(document.getElementById("grid"), {
  columnDefs: [
    { field: "invoice", headerName: "Invoice" },
    { field: "customer", headerName: "Customer" },
    { field: "amount", headerName: "Amount", editable: true, cellEditor: "agNumberCellEditor" },
    { field: "status", headerName: "Status", editable: true },
  ],
  rowData: rows,
  onCellValueChanged: () => { mirror(); window.__state.edits++; },
  onGridReady: () => mirror(),
});
window.__grid = api;
mirror();
