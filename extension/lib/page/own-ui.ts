// The extension's own elements in a page (the hand-off banner,
// ask-banner.ts): never part of what the AI reads. Kept by identity in
// this isolated world, so a page cannot hide its own elements from the AI
// by copying an attribute or a tag name.

export const OWN_UI: WeakSet<Element> = new WeakSet();
