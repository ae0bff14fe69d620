import { defineConfig } from "wxt";

// The public half of the extension's signing key. Chrome derives the
// extension id from it, so an unpacked copy loaded from any folder gets the
// same id (EXTENSION_ID). The private key is not in the repository.
export const MANIFEST_KEY =
  "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAno6dNeZlRVDpgOEA9VBwqIGaA5sx82VcwnFCqYrqc6HyVFRaP/ZXCgr4LBdVnlPvRRMLKVXIkr+CoDDV0+J6KV/P7fl8MfVeSUY2FfeF0NyS42FEVQVTGV/MGH0+ES88A+Agtvy2vjeQI9RuDbXL2VE9Jc3VAKCjreWILDTVaekrqhm23Vi5fpBsSQmcA7SoNZ3f8L8wWhj9s/kY3sanUcKPoRlDS7oYORFtGyWs6GVWPGZUZDPJqzj45PRZqlLqhUpXhPQnP2PF7zo9hrzTuw+bzXg0fhaAOIumWYEuWATePVTXP77tpOlgLp3/GBk65tqJjUuX2WGhuxXd7Y9qcQIDAQAB";

export default defineConfig({
  manifestVersion: 3,
  targetBrowsers: ["chrome"],
  manifest: {
    name: "monkbrowse",
    description:
      "Lets your AI app drive the Chrome tabs you choose to share, through a local monkbrowse server.",
    key: MANIFEST_KEY,
    minimum_chrome_version: "116",
    permissions: ["tabs", "scripting", "storage", "offscreen", "alarms", "webNavigation", "webRequest", "downloads", "debugger", "tabGroups", "nativeMessaging", "contextMenus"],
    host_permissions: ["<all_urls>"],
    // The organisation's policy (issue 44, lib/policy.ts): chrome.storage.managed's schema.
    storage: { managed_schema: "managed_schema.json" },
    action: { default_title: "monkbrowse: share tabs with your AI app" },
    // Stop or Resume the AI in this profile (background/steer.ts): Ctrl+Shift+Y
    // unless another extension holds it; the person can change the keys at
    // chrome://extensions/shortcuts.
    commands: {
      "toggle-pause": { suggested_key: { default: "Ctrl+Shift+Y" }, description: "Stop or resume the AI in this Chrome profile" },
    },
  },
});
