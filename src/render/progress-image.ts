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

const WIDTH = 640;
const ROW = 34;
const COLORS = { learned: "#2e7d32", shaky: "#f9a825", notYet: "#cfd8dc", due: "#c62828", text: "#263238" };

const xml = (s: string): string =>
	s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/** The SVG source of the picture (exported for tests and for a text-only fallback's alt). */
export function progressSvg(data: ProgressData): string {
	const topics = data.topics.slice(0, MAX_TOPICS);
	const locale = data.locale ?? DEFAULT_LOCALE;
	const word = (key: MessageKey, params?: MessageParams) => xml(t(locale, key, params));
	const barX = 220;
	const barW = 300;
	const top = 48;
	const timelineY = top + Math.max(1, topics.length) * ROW + 40;
	const height = timelineY + 90;
	const out: string[] = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="DejaVu Sans, sans-serif">`,
		`<rect width="100%" height="100%" fill="#fffdf8"/>`,
		`<text x="16" y="28" font-size="18" font-weight="bold" fill="${COLORS.text}">${word("progress.title")}</text>`,
	];
	if (topics.length === 0)
		out.push(`<text x="16" y="${top + 20}" font-size="14" fill="${COLORS.text}">${word("progress.noLessons")}</text>`);
	topics.forEach((t, i) => {
		const y = top + i * ROW;
		const total = Math.max(1, t.learned + t.shaky + t.notYet);
		out.push(`<text x="16" y="${y + 17}" font-size="13" fill="${COLORS.text}">${xml(clip(t.topic, 28))}</text>`);
		let x = barX;
		for (const [key, n] of [
			["learned", t.learned],
			["shaky", t.shaky],
			["notYet", t.notYet],
		] as const) {
			const w = (barW * n) / total;
			if (w > 0)
				out.push(`<rect x="${x.toFixed(1)}" y="${y + 4}" width="${w.toFixed(1)}" height="18" fill="${COLORS[key]}"/>`);
			x += w;
		}
		const label = `${t.learned}/${t.learned + t.shaky + t.notYet}${t.due > 0 ? ` · ${word("progress.due", { count: t.due })}` : ""}`;
		out.push(
			`<text x="${barX + barW + 10}" y="${y + 17}" font-size="12" fill="${t.due > 0 ? COLORS.due : COLORS.text}">${label}</text>`,
		);
	});
	if (data.topics.length > MAX_TOPICS)
		out.push(
			`<text x="16" y="${timelineY - 14}" font-size="11" fill="${COLORS.text}">${word("progress.moreTopics", { count: data.topics.length - MAX_TOPICS })}</text>`,
		);
	// Legend and timeline.
	out.push(
		`<text x="16" y="${timelineY + 4}" font-size="11" fill="${COLORS.learned}">■ ${word("plan.kind.learned")}</text>`,
		`<text x="96" y="${timelineY + 4}" font-size="11" fill="${COLORS.shaky}">■ ${word("plan.kind.shaky")}</text>`,
		`<text x="166" y="${timelineY + 4}" font-size="11" fill="#90a4ae">■ ${word("plan.kind.upcoming")}</text>`,
		`<text x="16" y="${timelineY + 30}" font-size="12" fill="${COLORS.text}">${word("progress.lastDays", { count: TIMELINE_DAYS })}</text>`,
	);
	const cell = 16;
	for (let d = 0; d < TIMELINE_DAYS; d++) {
		const day = new Date(data.today.getTime() - (TIMELINE_DAYS - 1 - d) * 86_400_000).toISOString().slice(0, 10);
		const act = data.days[day];
		const n = (act?.lessons ?? 0) + (act?.reviews ?? 0);
		const fill = n === 0 ? "#eceff1" : act && act.lessons > 0 ? COLORS.learned : "#81c784";
		out.push(
			`<rect x="${130 + d * (cell + 2)}" y="${timelineY + 18}" width="${cell}" height="${cell}" rx="3" fill="${fill}"/>`,
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
