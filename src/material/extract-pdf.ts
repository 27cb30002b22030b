/**
 * A learner's PDF → its text per page, with the headings found by font size (a line set clearly
 * larger than the body text, short, with letters). Read with PDF.js (`pdfjs-dist`, the legacy
 * build for Node 20) with eval off, no font loading, no worker, no scripting, after a pre-read of
 * the raw bytes (pdf-streams.ts) refuses compression bombs; bounded in bytes, pages, characters and
 * time (limits.ts). Scripts in the file are never run (PDF.js here has no scripting at all) and
 * are reported as ignored; text that addresses an AI ("ignore previous instructions") is kept as
 * the document's words and flagged: it reaches the tutor only as quoted material.
 */

import type { getDocument as GetDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import {
	DEFAULT_MATERIAL_LIMITS,
	type MaterialLimits,
	type MaterialRefusal,
	type MaterialWarning,
	refusal,
} from "./limits.ts";
import { scanPdfStreams } from "./pdf-streams.ts";

/** One page's text. */
export interface MaterialPage {
	/** 1-based, as the document numbers its pages in a viewer. */
	number: number;
	/** The page's lines, joined by newlines. */
	text: string;
	/** The headings on this page, in order. */
	headings: string[];
}

/** A heading of the document, where it is. */
export interface MaterialHeading {
	title: string;
	page: number;
	/** 1: a chapter-size heading; 2: a section. */
	level: 1 | 2;
}

/** A document read. */
export interface MaterialDocument {
	ok: true;
	name: string;
	pages: MaterialPage[];
	outline: MaterialHeading[];
	warnings: MaterialWarning[];
	/** `part`: a text file's parts of about 3,000 characters stand for pages (extract-text.ts); absent: real pages. */
	unit?: "part";
}

/** A text item of PDF.js's getTextContent (the fields we read; the rest is ignored). */
interface TextItemLike {
	str: string;
	transform: number[];
	hasEOL?: boolean;
}

const isTextItem = (item: unknown): item is TextItemLike =>
	typeof item === "object" &&
	item !== null &&
	typeof (item as { str?: unknown }).str === "string" &&
	Array.isArray((item as { transform?: unknown }).transform);

interface Line {
	text: string;
	size: number;
}

/** The items of a page as lines (a new line at an end-of-line mark or a change of baseline). */
function linesOf(items: readonly unknown[]): Line[] {
	const lines: Line[] = [];
	let current: Line | undefined;
	let lastY: number | undefined;
	let broke = false;
	for (const item of items) {
		if (!isTextItem(item)) continue;
		const [a = 0, b = 0, , d = 0, , y = 0] = item.transform;
		const size = Math.max(Math.hypot(a, b), Math.abs(d));
		if (item.str !== "") {
			if (!current || broke || (lastY !== undefined && Math.abs(y - lastY) > 1)) {
				current = { text: "", size: 0 };
				lines.push(current);
			}
			current.text += item.str;
			current.size = Math.max(current.size, size);
			lastY = y;
			broke = false;
		}
		if (item.hasEOL) broke = true;
	}
	return lines.map((l) => ({ text: l.text.replace(/\s+/g, " ").trim(), size: l.size })).filter((l) => l.text !== "");
}

/** The body text's font size: the size most characters are set in. */
function bodySize(pages: readonly Line[][]): number {
	const chars = new Map<number, number>();
	for (const lines of pages)
		for (const l of lines) {
			const size = Math.round(l.size * 2) / 2;
			chars.set(size, (chars.get(size) ?? 0) + l.text.length);
		}
	let best = 0;
	let most = -1;
	for (const [size, n] of chars)
		if (n > most) {
			best = size;
			most = n;
		}
	return best;
}

const MAX_HEADING_CHARS = 120;

/** A heading's level by its size against the body's; undefined for body text. */
function headingLevel(line: Line, body: number): 1 | 2 | undefined {
	if (body <= 0 || line.text.length > MAX_HEADING_CHARS || !/\p{L}{2}/u.test(line.text)) return undefined;
	if (line.size >= body * 1.6) return 1;
	if (line.size >= body * 1.2) return 2;
	return undefined;
}

/** Words addressed to an AI rather than a reader: flagged, kept as quoted text. */
const INSTRUCTION_PATTERNS = [
	/\b(?:ignore|disregard|forget|override)\s(?:all\s|any\s|the\s|your\s)?(?:previous|prior|above|earlier|system)\s(?:instructions|prompts?|rules|messages)/i,
	/\b(?:system prompt|you are now|new instructions|developer mode|as an ai|mark (?:this|the|my) answer)/i,
];

/** True when a page's text addresses the tutor as instructions would. */
export function looksLikeInstructions(text: string): boolean {
	const flat = text.replace(/\s+/g, " ");
	return INSTRUCTION_PATTERNS.some((p) => p.test(flat));
}

/** What extraction needs besides the bytes. */
export interface ExtractOptions {
	name?: string;
	limits?: Partial<MaterialLimits>;
}

const sleep = (ms: number, signal: { timer?: NodeJS.Timeout }) =>
	new Promise<"timeout">((done) => {
		signal.timer = setTimeout(() => done("timeout"), ms);
	});

/** Read a PDF's text per page with its headings; a refusal (with its reason) instead when it may not be read. Never rejects. */
export async function extractPdf(
	bytes: Uint8Array,
	options: ExtractOptions = {},
): Promise<MaterialDocument | MaterialRefusal> {
	const limits: MaterialLimits = { ...DEFAULT_MATERIAL_LIMITS, ...options.limits };
	const name =
		(options.name ?? "material.pdf")
			.replace(/[\r\n`*_~|<>[\]]/g, " ")
			.trim()
			.slice(0, 200) || "material.pdf";
	if (bytes.byteLength > limits.maxBytes) return refusal("too-big", limits);
	// The header may sit after up to 1 KB of junk (PDF readers allow it); nothing else is a PDF.
	const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString("latin1");
	if (!head.includes("%PDF-")) return refusal("not-a-pdf", limits);
	const started = Date.now();
	const scan = await scanPdfStreams(bytes, limits.maxInflatedBytes);
	if (scan.bomb) return refusal("compression-bomb", limits);
	const clock: { timer?: NodeJS.Timeout } = {};
	// Loaded on the first document, not when the bot starts: PDF.js is a large module most processes never need.
	const { getDocument } = await loadPdfJs();
	// PDF.js takes ownership of the buffer it is given: a copy keeps the caller's bytes intact.
	const task = getDocument({
		data: new Uint8Array(bytes),
		isEvalSupported: false,
		disableFontFace: true,
		useSystemFonts: false,
		enableXfa: false,
		stopAtErrors: false,
		verbosity: 0,
	});
	const work = readPages(task.promise, name, limits, scan.scripts, started);
	try {
		const outcome = await Promise.race([work, sleep(limits.timeoutMs, clock)]);
		return outcome === "timeout" ? refusal("timeout", limits) : outcome;
	} finally {
		clearTimeout(clock.timer);
		// Destroying the task stops whatever PDF.js still does (a timed-out read) and frees its memory.
		await task.destroy().catch(() => {});
		work.catch(() => {});
	}
}

type PdfProxy = Awaited<ReturnType<typeof GetDocument>["promise"]>;

let pdfjs: Promise<{ getDocument: typeof GetDocument }> | undefined;
const loadPdfJs = () => {
	pdfjs ??= import("pdfjs-dist/legacy/build/pdf.mjs");
	return pdfjs;
};

async function readPages(
	loading: Promise<PdfProxy>,
	name: string,
	limits: MaterialLimits,
	scriptsInBytes: boolean,
	started: number,
): Promise<MaterialDocument | MaterialRefusal> {
	let pdf: PdfProxy;
	try {
		pdf = await loading;
	} catch (error) {
		const kind = (error as { name?: unknown }).name;
		if (kind === "PasswordException") return refusal("encrypted", limits);
		return refusal("unreadable", limits, error instanceof Error ? error.message.slice(0, 120) : undefined);
	}
	if (pdf.numPages > limits.maxPages) return refusal("too-many-pages", limits, pdf.numPages.toLocaleString("en"));
	const warnings: MaterialWarning[] = [];
	const scripts = scriptsInBytes || (await pdf.getJSActions().catch(() => null)) !== null;
	if (scripts)
		warnings.push({
			code: "scripts-ignored",
			message: "The PDF carries scripts (JavaScript); they were ignored: only its text is read.",
		});
	const pageLines: Line[][] = [];
	let chars = 0;
	let cut = false;
	for (let n = 1; n <= pdf.numPages && !cut; n++) {
		if (Date.now() - started > limits.timeoutMs) return refusal("timeout", limits);
		const page = await pdf.getPage(n);
		const content = await page.getTextContent();
		page.cleanup();
		const lines: Line[] = [];
		for (const line of linesOf(content.items)) {
			if (chars + line.text.length > limits.maxChars) {
				cut = true;
				break;
			}
			chars += line.text.length + 1;
			lines.push(line);
		}
		pageLines.push(lines);
	}
	if (cut)
		warnings.push({
			code: "chars-cut",
			message: `The PDF holds more than ${limits.maxChars.toLocaleString("en")} characters; only the pages up to ${pageLines.length} are used.`,
		});
	if (chars === 0) return refusal("no-text", limits);
	const body = bodySize(pageLines);
	const pages: MaterialPage[] = [];
	const outline: MaterialHeading[] = [];
	const flagged: number[] = [];
	pageLines.forEach((lines, i) => {
		const number = i + 1;
		const headings: string[] = [];
		for (const line of lines) {
			const level = headingLevel(line, body);
			if (!level) continue;
			headings.push(line.text);
			outline.push({ title: line.text, page: number, level });
		}
		const text = lines.map((l) => l.text).join("\n");
		if (looksLikeInstructions(text)) flagged.push(number);
		pages.push({ number, text, headings });
	});
	if (flagged.length > 0)
		warnings.push({
			code: "instructions-quoted",
			pages: flagged,
			message: `Page${flagged.length > 1 ? "s" : ""} ${flagged.join(", ")} of the PDF hold${flagged.length > 1 ? "" : "s"} text addressed to an AI ("ignore previous instructions" or the like). The tutor reads it as part of the document, quoted, never as instructions.`,
		});
	return { ok: true, name, pages, outline, warnings };
}
