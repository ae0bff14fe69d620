// @title Revenue (Chart.js)
// A Chart.js bar chart whose <canvas> keeps accessible fallback content: the
// data as a list, and buttons that show or hide each series. Clicks on the
// chart's legend hide a series too. The chart's own visibility state
// (chart.isDatasetVisible) is on window.__state. (No role=img on the canvas:
// that would make its fallback content presentational.)
import { Chart, BarController, BarElement, CategoryScale, LinearScale, Legend } from "chart.js";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend);
const root = document.getElementById("root");
root.innerHTML = `<h1>Revenue</h1><div style="width:600px;height:320px"><canvas id="chart">` +
  `<ul><li>Q1: 2023 120, 2024 150</li><li>Q2: 2023 135, 2024 180</li><li>Q3: 2023 160, 2024 170</li><li>Q4: 2023 190, 2024 240</li></ul>` +
  `<button id="t2023">Show or hide 2023</button><button id="t2024">Show or hide 2024</button></canvas></div>`;
const chart = new Chart(document.getElementById("chart"), {
  type: "bar",
  data: {
    labels: ["Q1", "Q2", "Q3", "Q4"],
    datasets: [
      { label: "2023", data: [120, 135, 160, 190], backgroundColor: "#8ab" },
      { label: "2024", data: [150, 180, 170, 240], backgroundColor: "#d84" },
    ],
  },
  options: {
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    plugins: { legend: { onClick: (e, item, legend) => { Legend.defaults.onClick.call(legend, e, item, legend); mirror(); } } },
  },
});
const toggle = (i) => { chart.setDatasetVisibility(i, !chart.isDatasetVisible(i)); chart.update(); mirror(); };
document.getElementById("t2023").onclick = () => toggle(0);
document.getElementById("t2024").onclick = () => toggle(1);
function mirror() { window.__state = { visible: chart.data.datasets.map((d, i) => chart.isDatasetVisible(i)) }; }
mirror();
window.__chart = chart;
