/**
 * Long code blocks -> file attachments: a fenced block longer than the
 * platform's bound (Discord 1,500 characters, Slack 2,500) is replaced by a
 * short preview (its first lines, same language) and a note, and its full
 * text goes as a file named after its language (`snippet.py`). At most
 * CODE_MAX_FILES per card; one pass over the lines.
 */

import type { CardAttachment } from "./cards/model.ts";

/** Most code files attached to one card. */
export const CODE_MAX_FILES = 5;
/** Lines of a long block shown as its preview. */
const PREVIEW_LINES = 8;

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;

const EXTENSIONS: Record<string, string> = {
	python: "py",
	py: "py",
	javascript: "js",
	js: "js",
	typescript: "ts",
	ts: "ts",
	tsx: "tsx",
	jsx: "jsx",
	java: "java",
	c: "c",
	cpp: "cpp",
	"c++": "cpp",
	csharp: "cs",
	cs: "cs",
	go: "go",
	rust: "rs",
	rs: "rs",
	ruby: "rb",
	rb: "rb",
	php: "php",
	kotlin: "kt",
	swift: "swift",
	sql: "sql",
	bash: "sh",
	sh: "sh",
	shell: "sh",
	html: "html",
	css: "css",
	json: "json",
	yaml: "yaml",
	yml: "yaml",
	tex: "tex",
	latex: "tex",
	r: "r",
	haskell: "hs",
	lua: "lua",
	scala: "scala",
};

/** A file name for code in `language` ("snippet.py"; "snippet.txt" when unknown). */
export function snippetName(language: string, n: number): string {
	const ext = EXTENSIONS[language.toLowerCase()] ?? "txt";
	return `snippet${n > 1 ? `-${n}` : ""}.${ext}`;
}

/** Markdown with fenced blocks longer than `bound` replaced by a preview, and those blocks as files. */
export function longCodeToFiles(markdown: string, bound: number): { text: string; files: CardAttachment[] } {
	const files: CardAttachment[] = [];
	if (markdown.length <= bound) return { text: markdown, files };
	const lines = markdown.split("\n");
	const out: string[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const open = FENCE.exec(line);
		if (open === null) {
			out.push(line);
			continue;
		}
		const marker = open[1] ?? "```";
		const language = open[2] ?? "";
		let j = i + 1;
		while (j < lines.length && !(lines[j] ?? "").trim().startsWith(marker)) j++;
		const body = lines.slice(i + 1, j);
		const size = body.reduce((n, l) => n + l.length + 1, 0);
		if (size > bound && files.length < CODE_MAX_FILES) {
			const filename = snippetName(language, files.length + 1);
			files.push({ kind: "file", filename, data: Buffer.from(`${body.join("\n")}\n`, "utf8"), title: filename });
			const preview = body.slice(0, PREVIEW_LINES).map((l) => (l.length > 120 ? `${l.slice(0, 119)}…` : l));
			out.push(`${marker}${language}`, ...preview, marker);
			out.push(`_… ${body.length} lines in all: the full code is attached as ${filename}._`);
		} else out.push(...lines.slice(i, Math.min(j + 1, lines.length)));
		i = j;
	}
	return { text: out.join("\n"), files };
}
