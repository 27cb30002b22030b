/**
 * The community's pages, as HTML bodies: the overview (numbers and a chart of
 * lessons per week), where the group gets stuck (per topic, its map nodes with
 * the share of learners for whom each is shaky or not yet, as a bar and as
 * numbers), and the list of lessons (links to each transcript). Charts are SVG
 * drawn here, each with a text alternative; every value goes through `html`.
 */

import type { LessonDigest } from "../agent/index.ts";
import { Html, html } from "./html.ts";
import { type LearnerView, type Overview, percent, type StuckTopic } from "./stats.ts";

/** A date-time as UTC, minutes precision. */
export function when(iso: string | undefined): string {
	if (!iso) return "";
	const t = Date.parse(iso);
	return Number.isNaN(t) ? "" : `${new Date(t).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** The overview's body. */
export function overviewBody(o: Overview, base: string): Html {
	const cards: Array<[string, string | number]> = [
		["Lessons this week", o.lessonsThisWeek],
		["Learners this week", o.learnersThisWeek],
		["Lessons kept", o.lessons],
		["Learners", o.learners],
		["Completed", `${percent(o.completed, o.lessons)} %`],
		["Group lessons", o.groupLessons],
		["Questions answered", o.answered],
		["Right on the first try", `${percent(o.firstTry, o.answered)} %`],
	];
	return html`<dl class="cards">${cards.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>
<h2>Lessons per week</h2>
${weekChart(o.perWeek)}
<h2>Topics</h2>
${
	o.topics.length === 0
		? html`<p>No lesson has ended here yet. Lessons appear once they end.</p>`
		: html`<div class="table-wrap"><table><thead><tr><th scope="col">Topic</th><th scope="col" class="num">Lessons</th></tr></thead>
<tbody>${o.topics.map((t) => html`<tr><td>${t.topic}</td><td class="num">${t.lessons}</td></tr>`)}</tbody></table></div>
<p><a href="${base}/stuck">Where the group gets stuck, per topic</a></p>`
}`;
}

/** Bars of lessons per week, with the numbers as the picture's text alternative. */
function weekChart(weeks: Overview["perWeek"]): Html {
	const max = Math.max(1, ...weeks.map((w) => w.lessons));
	const w = 600;
	const h = 160;
	const slot = w / Math.max(1, weeks.length);
	const label = weeks.map((x) => `week of ${x.start}: ${x.lessons}`).join("; ");
	const bars = weeks.map((x, i) => {
		const bh = Math.round(((h - 30) * x.lessons) / max);
		const bx = Math.round(i * slot + slot * 0.15);
		return html`<rect x="${bx}" y="${h - 20 - bh}" width="${Math.round(slot * 0.7)}" height="${bh}" fill="#1f2a44"></rect>
<text x="${Math.round(i * slot + slot / 2)}" y="${h - 24 - bh}" font-size="12" text-anchor="middle" fill="#1b1f24">${x.lessons}</text>
<text x="${Math.round(i * slot + slot / 2)}" y="${h - 5}" font-size="10" text-anchor="middle" fill="#303846">${x.start.slice(5)}</text>`;
	});
	return html`<svg viewBox="0 0 ${w} ${h}" role="img" aria-label="Lessons per week, oldest first: ${label}">${bars}</svg>`;
}

/** The stuck view's body. */
export function stuckBody(view: { topics: StuckTopic[]; more: number }): Html {
	if (view.topics.length === 0) return html`<p>No lesson with a map has ended here yet.</p>`;
	return html`<p>Per topic, each node of the lesson maps, with the share of learners for whom it is
<strong>shaky</strong> (missed, or right only with help) or <strong>not yet</strong> checked, from each learner's latest lesson on the topic.
Most stuck first.</p>
<ul class="legend" aria-label="Colours"><li><span class="swatch learned"></span>learned</li><li><span class="swatch shaky"></span>shaky</li><li><span class="swatch notyet"></span>not yet</li></ul>
${view.topics.map(
	(t, ti) => html`<section aria-labelledby="topic-${ti}" data-topic="${t.topic}">
<h2 id="topic-${ti}">${t.topic}</h2>
<p class="muted">${t.lessons} lesson${t.lessons === 1 ? "" : "s"}, ${t.learners} learner${t.learners === 1 ? "" : "s"}</p>
<div class="table-wrap"><table><thead><tr><th scope="col">Node</th><th scope="col" class="num">Stuck</th><th scope="col" class="bar">Learned / shaky / not yet</th><th scope="col" class="num">Learners</th></tr></thead>
<tbody>${t.nodes.map(
		(
			n,
		) => html`<tr data-node="${n.label}" data-learners="${n.learners}" data-learned="${n.learned}" data-shaky="${n.shaky}" data-notyet="${n.notYet}">
<td>${n.label}</td><td class="num">${percent(n.stuck, n.learners)} %</td><td class="bar">${stackedBar(n)}</td><td class="num">${n.learners}</td></tr>`,
	)}</tbody></table></div></section>`,
)}
${view.more > 0 ? html`<p class="muted">${view.more} more topics with fewer lessons are not shown.</p>` : ""}`;
}

/** Learned, shaky and not yet as one bar; its label says the numbers. */
function stackedBar(n: { learners: number; learned: number; shaky: number; notYet: number }): Html {
	const total = Math.max(1, n.learners);
	const w = 200;
	const parts: Array<[number, string]> = [
		[n.learned, "#2e7d32"],
		[n.shaky, "#f2b705"],
		[n.notYet, "#c5cad3"],
	];
	let x = 0;
	const rects = parts.map(([count, fill]) => {
		const width = Math.round((w * count) / total);
		const r = html`<rect x="${x}" y="0" width="${width}" height="16" fill="${fill}"></rect>`;
		x += width;
		return r;
	});
	return html`<svg viewBox="0 0 ${w} 16" width="${w}" height="16" role="img" aria-label="${n.learned} learned, ${n.shaky} shaky, ${n.notYet} not yet">${rects}</svg>`;
}

/** Lessons on one page of the list. */
export const LESSONS_PER_PAGE = 50;

/** The lessons list's body (one page, newest first). */
export function lessonsBody(lessons: readonly LessonDigest[], pageNo: number, total: number, base: string): Html {
	const pages = Math.max(1, Math.ceil(total / LESSONS_PER_PAGE));
	if (total === 0) return html`<p>No lesson has ended here yet.</p>`;
	const who = (d: LessonDigest) =>
		d.people.map(
			(p, i) =>
				html`${i > 0 ? ", " : ""}<a href="${base}/learners/${encodeURIComponent(p.id)}">${p.name ? `${p.name} (${p.id})` : p.id}</a>`,
		);
	return html`<p class="muted">${total} lessons, newest first. Page ${pageNo} of ${pages}.</p>
<div class="table-wrap"><table><thead><tr><th scope="col">Started</th><th scope="col">Topic</th><th scope="col">Learners</th><th scope="col" class="num">Answered</th><th scope="col">Outcome</th></tr></thead>
<tbody>${lessons.map(
		(
			d,
		) => html`<tr><td>${when(d.startedAt)}</td><td><a href="${base}/lessons/${encodeURIComponent(d.sessionId)}">${d.topic}</a></td>
<td>${who(d)}</td><td class="num">${d.people.reduce((s, p) => s + p.answered, 0)}</td><td>${d.outcome}</td></tr>`,
	)}</tbody></table></div>
<nav class="pager" aria-label="Pages">${pageNo > 1 ? html`<a href="${base}/lessons?page=${pageNo - 1}">Newer</a>` : ""}${
		pageNo < pages ? html`<a href="${base}/lessons?page=${pageNo + 1}">Older</a>` : ""
	}</nav>`;
}

const MASTERY_NAMES = { learned: "learned", shaky: "shaky", "not-yet": "not yet" } as const;

/** A member's page: numbers, per topic their status on each node (from their latest lesson with it), their lessons. */
export function learnerBody(v: LearnerView, base: string): Html {
	const cards: Array<[string, string | number]> = [
		["Lessons", v.lessons.length],
		["Last activity", when(v.lastActivity)],
		["Questions answered", v.answered],
		["Right on the first try", `${percent(v.firstTry, v.answered)} %`],
	];
	return html`<dl class="cards">${cards.map(([k, val]) => html`<div><dt>${k}</dt><dd>${val}</dd></div>`)}</dl>
${v.topics.map((t, ti) => {
	const count = (m: string) => t.nodes.filter((n) => n.mastery === m).length;
	return html`<section aria-labelledby="learner-topic-${ti}" data-topic="${t.topic}">
<h2 id="learner-topic-${ti}">${t.topic}</h2>
<p class="muted">${count("learned")} learned, ${count("shaky")} shaky, ${count("not-yet")} not yet</p>
<div class="table-wrap"><table><thead><tr><th scope="col">Node</th><th scope="col">Status</th></tr></thead>
<tbody>${t.nodes.map((n) => html`<tr data-node="${n.label}" data-mastery="${n.mastery}"><td>${n.label}</td><td><span class="swatch ${n.mastery === "not-yet" ? "notyet" : n.mastery}"></span>${MASTERY_NAMES[n.mastery]}</td></tr>`)}</tbody></table></div></section>`;
})}
<h2>Lessons</h2>
<div class="table-wrap"><table><thead><tr><th scope="col">Started</th><th scope="col">Topic</th><th scope="col" class="num">Answered</th><th scope="col">Outcome</th></tr></thead>
<tbody>${v.lessons.map(
		(d) =>
			html`<tr><td>${when(d.startedAt)}</td><td><a href="${base}/lessons/${encodeURIComponent(d.sessionId)}">${d.topic}</a></td><td class="num">${d.people.find((p) => p.id === v.id)?.answered ?? 0}</td><td>${d.outcome}</td></tr>`,
	)}</tbody></table></div>`;
}

/** A short page for refusals and notices. */
export function messageBody(text: string, detail?: string): Html {
	return html`<p>${text}</p>${detail ? html`<p class="muted">${detail}</p>` : new Html("")}`;
}
