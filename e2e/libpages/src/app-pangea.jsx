// @title Board (@hello-pangea/dnd)
// A two-column board with @hello-pangea/dnd (the maintained react-beautiful-dnd);
// the columns' cards, as React state, are on window.__state.
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { DragDropContext, Droppable, Draggable } from "@hello-pangea/dnd";

const initial = { todo: ["Write report", "Fix login bug", "Plan sprint"], done: ["Order laptops"] };
window.__state = { ...initial, drops: 0 };

function Column({ id, title, cards }) {
  return (
    <section style={{ display: "inline-block", verticalAlign: "top", width: 240, margin: 8 }}>
      <h2 id={`h-${id}`}>{title}</h2>
      <Droppable droppableId={id}>
        {(p) => (
          <ul ref={p.innerRef} {...p.droppableProps} aria-labelledby={`h-${id}`} style={{ minHeight: 160, padding: 6, background: "#eef" }}>
            {cards.map((c, i) => (
              <Draggable key={c} draggableId={c} index={i}>
                {(d) => <li ref={d.innerRef} {...d.draggableProps} {...d.dragHandleProps}>{c}</li>}
              </Draggable>
            ))}
            {p.placeholder}
          </ul>
        )}
      </Droppable>
    </section>
  );
}

function Board() {
  const [cols, setCols] = useState(initial);
  const onDragEnd = (r) => {
    if (!r.destination) return;
    const next = { todo: [...cols.todo], done: [...cols.done] };
    const [card] = next[r.source.droppableId].splice(r.source.index, 1);
    next[r.destination.droppableId].splice(r.destination.index, 0, card);
    setCols(next);
    window.__state = { ...next, drops: window.__state.drops + 1 };
  };
  return (
    <>
      <h1>Board</h1>
      <DragDropContext onDragEnd={onDragEnd}>
        <Column id="todo" title="To do" cards={cols.todo} />
        <Column id="done" title="Done" cards={cols.done} />
      </DragDropContext>
    </>
  );
}
createRoot(document.getElementById("root")).render(<Board />);
