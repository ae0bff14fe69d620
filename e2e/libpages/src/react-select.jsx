// @title react-select
// react-select: the menu opens when the input gets focus (openMenuOnFocus).
import { useState } from "react";
import { createRoot } from "react-dom/client";
import Select from "react-select";

const fruits = ["Apple", "Banana", "Cherry", "Damson", "Elderberry"].map((f) => ({ value: f.toLowerCase(), label: f }));

function App() {
  const [fruit, setFruit] = useState(null);
  const [open, setOpen] = useState(false);
  window.__state = { fruit: fruit ? fruit.value : null, menuOpen: open };
  return (
    <main>
      <h1>react-select</h1>
      <label id="fruit-label" htmlFor="fruit-input">Fruit</label>
      <Select
        inputId="fruit-input"
        aria-labelledby="fruit-label"
        options={fruits}
        value={fruit}
        onChange={setFruit}
        openMenuOnFocus
        onMenuOpen={() => setOpen(true)}
        onMenuClose={() => setOpen(false)}
      />
      <p>Chosen: {fruit ? fruit.label : "none"}</p>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
