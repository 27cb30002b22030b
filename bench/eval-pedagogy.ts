/**
 * `npm run eval:pedagogy [-- --model provider:model] [--baseline] [--grader provider:model] [--seed s]
 * [--personas a,b] [--picture file.svg]`: simulated learners with a hidden knowledge state through
 * lessons on the model under test (the configured one by default: the built-in demo without a key),
 * next to a tutor that only explains; bad tutors against the guardrails; a rubric grader and its
 * agreement with hand-labelled turns. Prints a table, a picture, and one JSON line last.
 * What each number means: docs/evaluation.md.
 */

import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ConfigError } from "../src/config.ts";
import { pictureLines, pictureSvg, tableLines } from "./eval/report.ts";
import { reportJson, runEval } from "./eval/run.ts";

const { values } = parseArgs({
	options: {
		model: { type: "string" },
		baseline: { type: "boolean", default: false },
		grader: { type: "string" },
		seed: { type: "string", default: "1" },
		personas: { type: "string" },
		picture: { type: "string" },
	},
	strict: true,
});

try {
	const report = await runEval({
		...(values.model ? { model: values.model } : {}),
		...(values.grader ? { grader: values.grader } : {}),
		baseline: values.baseline === true,
		seed: values.seed ?? "1",
		...(values.personas ? { personas: values.personas.split(",").map((s) => s.trim()) } : {}),
		log: (line) => process.stderr.write(`${line}\n`),
	});
	for (const line of [...tableLines(report), "", ...pictureLines(report)]) console.log(line);
	if (values.picture) {
		writeFileSync(values.picture, pictureSvg(report));
		console.log(`picture written to ${values.picture}`);
	}
	console.log(JSON.stringify(reportJson(report)));
} catch (error) {
	if (error instanceof ConfigError) {
		console.error(`eval:pedagogy cannot reach that model.\n${error.message}`);
		process.exit(2);
	}
	throw error;
}
