// The row of answer buttons under a question the popup asks the person (a
// hand-off, an approval, a site tool's consent). One click disables the whole
// row, so a second click cannot send a second answer before the list
// re-renders; the answer goes to the service worker, which takes answers from
// extension pages only.

export type AnswerButton<A extends string> = readonly [cls: string, label: string, answer: A];

export function answerRow<A extends string>(
  buttons: readonly AnswerButton<A>[],
  send: (answer: A) => Promise<unknown>,
  showError: (e: unknown) => void,
): HTMLDivElement {
  const row = document.createElement("div");
  row.className = "ask-buttons";
  for (const [cls, label, answer] of buttons) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = cls;
    b.textContent = label;
    b.addEventListener("click", () => {
      for (const x of Array.from(row.querySelectorAll("button"))) x.disabled = true;
      send(answer).catch(showError);
    });
    row.append(b);
  }
  return row;
}
