/** @jsxImportSource preact */
// @title Preact todo
// A Preact controlled input whose Enter handler reads the draft from state
// (Preact re-renders in a microtask after each input).
import { render } from "preact";
import { useState } from "preact/hooks";

function App() {
  const [draft, setDraft] = useState("");
  const [todos, setTodos] = useState([]);
  window.__state = { draft, todos };
  return (
    <main>
      <h1>Preact todo</h1>
      <input
        aria-label="What needs doing"
        value={draft}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && draft !== "") {
            setTodos([...todos, draft]);
            setDraft("");
          }
        }}
      />
      <ul aria-label="Todos">{todos.map((t) => <li key={t}>{t}</li>)}</ul>
    </main>
  );
}

render(<App />, document.getElementById("root"));
