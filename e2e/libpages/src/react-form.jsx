// @title React form
// React controlled inputs, a submit on Enter read from state, and a Radix
// modal dialog. The page's own state is mirrored on window.__state.
import { useState } from "react";
import { createRoot } from "react-dom/client";
import * as Dialog from "@radix-ui/react-dialog";

function App() {
  const [name, setName] = useState("");
  const [bio, setBio] = useState("");
  const [draft, setDraft] = useState("");
  const [todos, setTodos] = useState([]);
  const [open, setOpen] = useState(false);
  const [nick, setNick] = useState("");
  const [saved, setSaved] = useState("");
  window.__state = { name, bio, draft, todos, open, nick, saved };
  return (
    <main>
      <h1>React form</h1>
      <label>
        Full name <input value={name} onChange={(e) => setName(e.target.value.toUpperCase())} />
      </label>
      <label>
        Bio <textarea value={bio} onChange={(e) => setBio(e.target.value)} />
      </label>
      <label>
        New todo{" "}
        <input
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && draft.trim() !== "") {
              setTodos([...todos, draft]);
              setDraft("");
            }
          }}
        />
      </label>
      <ul aria-label="Todos">{todos.map((t, i) => <li key={i}>{t}</li>)}</ul>
      <Dialog.Root open={open} onOpenChange={setOpen}>
        <Dialog.Trigger>Open settings</Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Overlay style={{ position: "fixed", inset: 0, background: "rgba(0,0,0,.3)" }} />
          <Dialog.Content style={{ position: "fixed", top: 80, left: 80, background: "#fff", padding: 20 }}>
            <Dialog.Title>Settings</Dialog.Title>
            <Dialog.Description>Choose a nickname.</Dialog.Description>
            <label>
              Nickname <input value={nick} onChange={(e) => setNick(e.target.value)} />
            </label>
            <button
              onClick={() => {
                setSaved(nick);
                setOpen(false);
              }}
            >
              Save settings
            </button>
            <Dialog.Close>Cancel</Dialog.Close>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
      <p>Saved nickname: {saved}</p>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
