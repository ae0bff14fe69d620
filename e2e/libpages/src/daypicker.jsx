// @title Date picker
// react-day-picker in single mode, on a fixed month.
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { DayPicker } from "react-day-picker";

function App() {
  const [day, setDay] = useState(undefined);
  window.__state = {
    selected: day ? `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}` : null,
  };
  return (
    <main>
      <h1>Date picker</h1>
      <DayPicker mode="single" selected={day} onSelect={setDay} defaultMonth={new Date(2024, 4, 1)} />
      <p>Picked: {window.__state.selected ?? "none"}</p>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
