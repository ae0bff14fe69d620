// @title dnd-kit board
// dnd-kit sortable with a PointerSensor that activates after 8 px of movement.
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { DndContext, PointerSensor, KeyboardSensor, closestCenter, useSensor, useSensors } from "@dnd-kit/core";
import { SortableContext, arrayMove, useSortable, verticalListSortingStrategy, sortableKeyboardCoordinates } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";

function Item({ id }) {
  const { attributes, listeners, setNodeRef, transform, transition } = useSortable({ id });
  return (
    <li ref={setNodeRef} style={{ transform: CSS.Transform.toString(transform), transition }} {...attributes} {...listeners}>
      {id}
    </li>
  );
}

function App() {
  const [items, setItems] = useState(["Task A", "Task B", "Task C", "Task D"]);
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 8 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  window.__state = { order: items };
  return (
    <main>
      <h1>dnd-kit board</h1>
      <DndContext
        sensors={sensors}
        collisionDetection={closestCenter}
        onDragEnd={({ active, over }) => {
          if (over && active.id !== over.id) {
            setItems((xs) => arrayMove(xs, xs.indexOf(active.id), xs.indexOf(over.id)));
          }
        }}
      >
        <SortableContext items={items} strategy={verticalListSortingStrategy}>
          <ul aria-label="Tasks">{items.map((id) => <Item key={id} id={id} />)}</ul>
        </SortableContext>
      </DndContext>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
