/**
 * The eval's output: a table per persona (the model under test, the explain-only reference and,
 * with --baseline, the plain chat side by side, with the model/reference ratio), the guardrails, the
 * grader's agreement, a picture (bars in the terminal; an SVG file with --picture) and the JSON line.
 */

import type { PersonaMeasures } from "./measures.ts";
import { overall } from "./measures.ts";
import type { EvalReport } from "./run.ts";

const fmt = (x: number | null | undefined, pct = false): string =>
	x === null || x === undefined ? "-" : pct ? `${Math.round(x * 100)}%` : String(x);
const ratio = (a: number, b: number): string => (b === 0 ? (a === 0 ? "-" : "inf") : `${(a / b).toFixed(1)}x`);

/** The table, guardrails and grader lines. */
export function tableLines(report: EvalReport): string[] {
	const head = [
		"persona",
		"topic",
		"diag",
		"gain",
		"gain expl-only",
		...(report.baseline ? ["gain baseline"] : []),
		"ratio",
		"repaired",
		"revealed",
		"scaffold",
		"typed judged",
		"kept open",
		"recall",
		"turns/node",
		"tokens/node",
	];
	const row = (m: PersonaMeasures, ref?: PersonaMeasures, base?: PersonaMeasures): string[] => [
		m.persona,
		m.topic,
		fmt(m.diagnosis_accuracy, true),
		fmt(m.learning_gain),
		fmt(ref?.learning_gain),
		...(report.baseline ? [fmt(base?.learning_gain)] : []),
		ratio(m.learning_gain, ref?.learning_gain ?? 0),
		`${m.misconceptions_repaired}/${m.misconceptions_held}`,
		`${m.revealed_before_attempt}/${m.quizzes}`,
		fmt(m.scaffolding_share, true),
		fmt(m.typed_judged_share, true),
		fmt(m.mid_quiz_kept_open_share, true),
		fmt(m.recall_at_end, true),
		fmt(m.turns_per_node_learned),
		fmt(m.tokens_per_node_learned),
	];
	const rows = report.measures.map((m) =>
		row(
			m,
			report.explainOnly.find((r) => r.persona === m.persona),
			report.baseline?.find((r) => r.persona === m.persona),
		),
	);
	const all = overall(report.measures);
	const ref = overall(report.explainOnly);
	const base = report.baseline ? overall(report.baseline) : undefined;
	rows.push([
		"overall",
		"(mean; medians per node)",
		fmt(all.diagnosis_accuracy, true),
		fmt(all.learning_gain),
		fmt(ref.learning_gain),
		...(base ? [fmt(base.learning_gain)] : []),
		ratio(all.learning_gain, ref.learning_gain),
		`${all.misconceptions_repaired}/${all.misconceptions_held}`,
		String(all.revealed_before_attempt),
		fmt(all.scaffolding_share, true),
		"",
		"",
		fmt(all.recall_at_end, true),
		fmt(all.turns_per_node_learned),
		fmt(all.tokens_per_node_learned),
	]);
	const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
	const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
	const out = [`model ${report.model} · seed ${report.seed}`, line(head), ...rows.map(line), ""];
	out.push(`rubric (grader: ${report.grader.name}): mistakes identified · answer revealed · guidance · actionable`);
	for (const m of report.measures)
		out.push(
			`  ${m.persona.padEnd(10)} ${fmt(m.rubric.mistake_identification, true)} · ${fmt(m.rubric.reveals_answer, true)} · ${fmt(m.rubric.guidance, true)} · ${fmt(m.rubric.actionable, true)} (${m.rubric.scored} turns)`,
		);
	const a = report.grader.agreement;
	out.push(
		`grader agreement with ${a.turns} hand-labelled turns: ${fmt(a.overall, true)} (${Object.entries(a.per)
			.map(([d, v]) => `${d} ${fmt(v, true)}`)
			.join(", ")}${a.unscored ? `; ${a.unscored} unscored` : ""})`,
		"",
		"guardrails (bad tutor vs the demo's good run): status · attempts · reached the learner · in the good run",
	);
	for (const [name, g] of Object.entries(report.guardrails))
		out.push(
			`  ${name.padEnd(22)} ${g.status.padEnd(7)} ${String(g.attempts).padStart(3)} tried · ${String(g.reached).padStart(3)} reached · ${g.good} good · ${g.separated ? "separated" : "NOT separated"}  (${g.about})`,
		);
	return out;
}

/** Bars of the learning gain per persona: model, explain-only, baseline. */
export function pictureLines(report: EvalReport): string[] {
	const bar = (x: number) => "█".repeat(Math.max(0, Math.round(x * 30))).padEnd(30, "·");
	const out = ["learning gain (hidden known-share after minus before), 0 to 1:"];
	for (const m of report.measures) {
		const ref = report.explainOnly.find((r) => r.persona === m.persona)?.learning_gain ?? 0;
		out.push(`  ${m.persona.padEnd(10)} model        ${bar(m.learning_gain)} ${m.learning_gain}`);
		out.push(`  ${"".padEnd(10)} explain-only ${bar(ref)} ${ref}`);
		const base = report.baseline?.find((r) => r.persona === m.persona)?.learning_gain;
		if (base !== undefined) out.push(`  ${"".padEnd(10)} baseline     ${bar(base)} ${base}`);
	}
	return out;
}

/** The same picture as an SVG document. */
export function pictureSvg(report: EvalReport): string {
	const series = [
		{ name: "model", color: "#2b6cb0", of: (p: string) => report.measures.find((m) => m.persona === p)?.learning_gain },
		{
			name: "explain-only",
			color: "#a0aec0",
			of: (p: string) => report.explainOnly.find((m) => m.persona === p)?.learning_gain,
		},
		...(report.baseline
			? [
					{
						name: "baseline",
						color: "#dd6b20",
						of: (p: string) => report.baseline?.find((m) => m.persona === p)?.learning_gain,
					},
				]
			: []),
	];
	const rowH = 14 * series.length + 12;
	const height = 40 + rowH * report.measures.length;
	const bars = report.measures.flatMap((m, i) =>
		series.map((s, j) => {
			const y = 30 + i * rowH + j * 14;
			const w = Math.max(0, (s.of(m.persona) ?? 0) * 300);
			return `<rect x="120" y="${y}" width="${w.toFixed(1)}" height="12" fill="${s.color}"/>${j === 0 ? `<text x="4" y="${y + 10}" font-size="11">${m.persona}</text>` : ""}`;
		}),
	);
	const legend = series.map(
		(s, j) => `<text x="${120 + j * 100}" y="16" font-size="11" fill="${s.color}">${s.name}</text>`,
	);
	return `<svg xmlns="http://www.w3.org/2000/svg" width="460" height="${height}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>${legend.join("")}${bars.join("")}<line x1="420" y1="24" x2="420" y2="${height}" stroke="#ccc"/></svg>\n`;
}
