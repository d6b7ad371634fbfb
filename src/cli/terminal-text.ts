// Text that did not come from the CLI itself (names, titles, messages and error details from the server, rows of a
// file, header values in --debug logs) is shown on a terminal through this one function, so that it can never
// drive the terminal: no clipboard write (OSC 52), no screen clear, no hyperlink (OSC 8), no line overwritten by a
// carriage return, no C1 control sequence. Every control character is shown as a visible escape instead, as gh's
// ASCII sanitizer and kubectl (since CVE-2021-25743) do. Data formats (--json, --format csv|ndjson) never come
// through here: they are written exactly as the API sent them.

// C0 controls, DEL, C1 controls; and the Unicode controls that reorder or hide what is shown (bidirectional
// embeddings, overrides and isolates: "Trojan Source"), which a terminal may apply.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// What JSON.stringify leaves raw inside a string that a terminal may still act on.
const RAW_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

function visible(char: string): string {
  const code = char.charCodeAt(0);
  return NAMED[char] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`);
}

/**
 * `text` safe to print on a terminal: every control character as a visible escape (`\x1b`, `\x9b`, `\x7f`, `\r`,
 * `\u202e`). With `multiline`, line feeds and tabs are kept, for a view meant to show several lines (a message's
 * text, a list the CLI composed); otherwise they are shown as `\n` and `\t` too, so a value stays on its one line.
 */
export function terminalText(text: string, { multiline = false }: { multiline?: boolean } = {}): string {
  return text.replace(multiline ? UNSAFE_BUT_LINES : UNSAFE, visible);
}

/**
 * JSON text safe to print on a terminal, and still the same JSON value: JSON.stringify escapes C0 controls, and
 * this writes DEL, the C1 controls and the bidirectional controls as `\u` escapes too.
 */
export function terminalJson(json: string): string {
  return json.replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
