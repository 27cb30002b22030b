/**
 * The learner's progress picture: per topic a bar of nodes learned / shaky /
 * not yet, the review items due, and a timeline of the last weeks (lessons and
 * reviews per day). An SVG drawn here, rasterized by resvg (the same native
 * rasterizer the math pictures use); text uses the system's fonts. Bounded:
 * at most MAX_TOPICS topics and TIMELINE_DAYS days are drawn.
 */

import { DEFAULT_LOCALE, type Locale, type MessageKey, type MessageParams, t } from "../i18n/index.ts";

/** One topic's counts. */
export interface ProgressTopic {
	topic: string;
	learned: number;
	shaky: number;
	notYet: number;
	due: number;
}

/** What the picture shows. */
export interface ProgressData {
	topics: ProgressTopic[];
	/** Activity per UTC day (`YYYY-MM-DD`), lessons and reviews. */
	days: Record<string, { lessons: number; reviews: number }>;
	/** The last day of the timeline (UTC). */
	today: Date;
	/** The reader's language for the picture's words (default English). */
	locale?: Locale;
}

/** Topics drawn (the most recent first); the rest are counted in a line. */
export const MAX_TOPICS = 8;
/** Days the timeline covers. */
export const TIMELINE_DAYS = 28;

/**
 * Drawn for a phone column: 400 CSS px wide (Discord and Slack show a picture about that wide on a
 * phone), so its text (13-17 px) is shown at its own size there. It has its own solid light
 * background: on a dark theme it reads as a card, and every colour of text is checked against that
 * background (>= 4.5:1, test/render/phone-pictures.test.ts), never against the chat's.
 */
export const PROGRESS_WIDTH = 400;
/** The picture's own background, and the colours it draws with. */
export const PROGRESS_COLORS = {
	background: "#fffdf8",
	/** Outline of the whole card: it marks the picture's edge on a light theme too. */
	border: "#78909c",
	text: "#263238",
	muted: "#455a64",
	due: "#b71c1c",
	learned: "#2e7d32",
	shaky: "#f9a825",
	notYet: "#cfd8dc",
	lesson: "#2e7d32",
	review: "#81c784",
	idle: "#eceff1",
} as const;
const C = PROGRESS_COLORS;
const PAD = 16;
const TOPIC_ROW = 52;

const xml = (s: string): string =>
	s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
const clip = (s: string, n: number): string =>
	Array.from(s).length <= n
		? s
		: `${Array.from(s)
				.slice(0, n - 1)
				.join("")}…`;

/** The SVG source of the picture (exported for tests and for a text-only fallback's alt). */
export function progressSvg(data: ProgressData): string {
	const topics = data.topics.slice(0, MAX_TOPICS);
	const locale = data.locale ?? DEFAULT_LOCALE;
	const word = (key: MessageKey, params?: MessageParams) => xml(t(locale, key, params));
	const inner = PROGRESS_WIDTH - PAD * 2;
	const top = 52;
	const more = data.topics.length > MAX_TOPICS ? 24 : 0;
	const legendY = top + Math.max(1, topics.length) * TOPIC_ROW + more + 8;
	const timelineY = legendY + 44;
	const height = timelineY + 36;
	const text = (x: number, y: number, size: number, fill: string, body: string, extra = ""): string =>
		`<text x="${x}" y="${y}" font-size="${size}" fill="${fill}"${extra}>${body}</text>`;
	const out: string[] = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${PROGRESS_WIDTH}" height="${height}" viewBox="0 0 ${PROGRESS_WIDTH} ${height}" font-family="DejaVu Sans, sans-serif">`,
		`<rect x="0.5" y="0.5" width="${PROGRESS_WIDTH - 1}" height="${height - 1}" rx="10" fill="${C.background}" stroke="${C.border}"/>`,
		text(PAD, 32, 18, C.text, word("progress.title"), ' font-weight="bold"'),
	];
	if (topics.length === 0) out.push(text(PAD, top + 24, 15, C.text, word("progress.noLessons")));
	topics.forEach((topic, i) => {
		// Two lines a topic: its name and counts, then its bar across the whole width.
		const y = top + i * TOPIC_ROW;
		const all = topic.learned + topic.shaky + topic.notYet;
		const total = Math.max(1, all);
		const due = topic.due > 0 ? ` · ${word("progress.due", { count: topic.due })}` : "";
		out.push(text(PAD, y + 16, 15, C.text, xml(clip(topic.topic, 26))));
		out.push(
			text(
				PROGRESS_WIDTH - PAD,
				y + 16,
				14,
				topic.due > 0 ? C.due : C.muted,
				`${topic.learned}/${all}${due}`,
				' text-anchor="end"',
			),
		);
		let x = PAD;
		for (const [key, n] of [
			["learned", topic.learned],
			["shaky", topic.shaky],
			["notYet", topic.notYet],
		] as const) {
			const w = (inner * n) / total;
			if (w > 0)
				out.push(`<rect x="${x.toFixed(1)}" y="${y + 24}" width="${w.toFixed(1)}" height="14" fill="${C[key]}"/>`);
			x += w;
		}
	});
	if (more > 0)
		out.push(
			text(PAD, legendY - 12, 14, C.muted, word("progress.moreTopics", { count: data.topics.length - MAX_TOPICS })),
		);
	// Legend: coloured swatches, the words in the text colour (a yellow word would not read on the light card).
	let lx = PAD;
	for (const [key, label] of [
		["learned", word("plan.kind.learned")],
		["shaky", word("plan.kind.shaky")],
		["notYet", word("plan.kind.upcoming")],
	] as const) {
		out.push(`<rect x="${lx}" y="${legendY}" width="14" height="14" rx="3" fill="${C[key]}" stroke="${C.border}"/>`);
		out.push(text(lx + 20, legendY + 12, 14, C.text, label));
		lx += 20 + Array.from(label).length * 8.5 + 18;
	}
	out.push(text(PAD, timelineY, 14, C.text, word("progress.lastDays", { count: TIMELINE_DAYS })));
	const step = inner / TIMELINE_DAYS;
	const cell = Math.floor(step) - 2;
	for (let d = 0; d < TIMELINE_DAYS; d++) {
		const day = new Date(data.today.getTime() - (TIMELINE_DAYS - 1 - d) * 86_400_000).toISOString().slice(0, 10);
		const act = data.days[day];
		const n = (act?.lessons ?? 0) + (act?.reviews ?? 0);
		const fill = n === 0 ? C.idle : act && act.lessons > 0 ? C.lesson : C.review;
		out.push(
			`<rect x="${(PAD + d * step).toFixed(1)}" y="${timelineY + 10}" width="${cell}" height="${cell}" rx="2" fill="${fill}"/>`,
		);
	}
	out.push("</svg>");
	return out.join("");
}

/** The picture as a PNG (2x). Throws when resvg cannot load or draw (the caller sends the text summary alone). */
export async function renderProgressPng(data: ProgressData): Promise<Buffer> {
	const { Resvg } = await import("@resvg/resvg-js");
	const drawn = new Resvg(progressSvg(data), {
		fitTo: { mode: "zoom", value: 2 },
		font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
	}).render();
	return Buffer.from(drawn.asPng());
}
