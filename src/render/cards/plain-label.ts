/**
 * A control's label as plain text. Buttons and select options show their text literally on Discord and
 * Slack (`plain_text`), so the model's markdown would read `**n**` or `` `x` ``: the marks go, the words stay
 * (a link keeps its label, a formula its TeX without the dollars). Each pattern is a run of one character class
 * between two fixed delimiters: linear, whatever the model writes.
 */

const MARKS: ReadonlyArray<[RegExp, string]> = [
	[/\[([^[\]\n]+)\]\([^()\s]*\)/g, "$1"], // [label](url)
	[/\*\*([^*\n]+)\*\*/g, "$1"],
	[/__([^_\n]+)__/g, "$1"],
	[/~~([^~\n]+)~~/g, "$1"],
	[/`([^`\n]+)`/g, "$1"],
	[/\$\$([^$\n]+)\$\$/g, "$1"],
	[/\$([^$\n]+)\$/g, "$1"],
	[/\\\(([^\\\n]+)\\\)/g, "$1"], // \(x^2\); one holding a command keeps its delimiters
	[/(^|[\s(])\*([^*\s][^*\n]*)\*(?=$|[\s.,;:!?)])/g, "$1$2"], // *emphasis*, not 2*3*4
	[/(^|[\s(])_([^_\s][^_\n]*)_(?=$|[\s.,;:!?)])/g, "$1$2"], // _emphasis_, not snake_case_name
];

/** `text` with markdown emphasis, code, links and math delimiters removed (words and TeX kept). */
export function plainLabel(text: string): string {
	let out = text;
	for (const [pattern, replacement] of MARKS) out = out.replace(pattern, replacement);
	return out;
}
