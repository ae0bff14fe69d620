// @title Radix menu
// A Radix dropdown menu: it opens on pointerdown (not click).
import { useState } from "react";
import { createRoot } from "react-dom/client";
import * as Menu from "@radix-ui/react-dropdown-menu";

function App() {
  const [last, setLast] = useState("");
  const [open, setOpen] = useState(false);
  window.__state = { last, open };
  return (
    <main>
      <h1>Radix menu</h1>
      <Menu.Root open={open} onOpenChange={setOpen}>
        <Menu.Trigger>File actions</Menu.Trigger>
        <Menu.Portal>
          <Menu.Content style={{ background: "#fff", border: "1px solid #888", padding: 4 }}>
            <Menu.Item onSelect={() => setLast("rename")}>Rename</Menu.Item>
            <Menu.Item onSelect={() => setLast("duplicate")}>Duplicate</Menu.Item>
            <Menu.Item onSelect={() => setLast("delete")}>Delete</Menu.Item>
          </Menu.Content>
        </Menu.Portal>
      </Menu.Root>
      <p>Last action: {last || "none"}</p>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
