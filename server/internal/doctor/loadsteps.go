package doctor

import (
	"fmt"
	"runtime"
)

// ExtensionID is the unpacked extension's id, fixed by the key in its
// manifest (extension/EXTENSION_ID).
const ExtensionID = "emkgfnickjohaibbledibfemnfkoamdj"

// LoadSteps are the exact steps for loading the unpacked extension into
// Chrome on goos (runtime.GOOS when empty), for the release zip of version.
func LoadSteps(goos, version string, port int) []string {
	if goos == "" {
		goos = runtime.GOOS
	}
	zip := "monkbrowse-extension-" + version + ".zip"
	var dir, unzip, chrome string
	switch goos {
	case "darwin":
		dir = "~/Library/Application Support/monkbrowse/extension"
		unzip = fmt.Sprintf(`mkdir -p "%s" && unzip -o ~/Downloads/%s -d "%s"`, "$HOME/Library/Application Support/monkbrowse/extension", zip, "$HOME/Library/Application Support/monkbrowse/extension")
		chrome = "In Chrome, type chrome://extensions in the address bar (menu ⋮ → Extensions → Manage Extensions)."
	case "windows":
		dir = `%LOCALAPPDATA%\monkbrowse\extension`
		unzip = fmt.Sprintf(`Expand-Archive -Force "$HOME\Downloads\%s" "$env:LOCALAPPDATA\monkbrowse\extension"    (PowerShell)`, zip)
		chrome = "In Chrome, type chrome://extensions in the address bar (menu ⋮ → Extensions → Manage Extensions)."
	default:
		dir = "~/.local/share/monkbrowse/extension"
		unzip = fmt.Sprintf(`mkdir -p ~/.local/share/monkbrowse/extension && unzip -o ~/Downloads/%s -d ~/.local/share/monkbrowse/extension`, zip)
		chrome = "In Chrome or Chromium, type chrome://extensions in the address bar."
	}
	return []string{
		fmt.Sprintf("Put the extension in a folder you keep (Chrome loads it from there every start): download %s from the release and unzip it into %s:\n      %s\n    Built from source instead? Use extension/.output/chrome-mv3 (scripts/build).", zip, dir, unzip),
		chrome,
		"Switch on Developer mode (top right).",
		fmt.Sprintf("Click Load unpacked and choose %s. The card shows monkbrowse with ID %s.", dir, ExtensionID),
		"Pin it: the puzzle-piece icon in the toolbar → the pin next to monkbrowse. A welcome page opens once; it explains the rest.",
		fmt.Sprintf("Click the monkbrowse icon: the popup says connected (port %d) once your AI app runs monkbrowse. Switch Share on for the tabs the AI may use.", port),
		"Repeat in every Chrome profile the AI should reach.",
	}
}
