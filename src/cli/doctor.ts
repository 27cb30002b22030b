/**
 * `learnharness doctor`: checks the configuration, Chromium and a test
 * render, the store (write, read, delete), the model, and each configured
 * platform's token; prints a table; exits non-zero when anything fails.
 * A bad variable does not stop the other checks: they run on what is valid.
 */

import type { Config, ConfigProblem, parseConfig } from "../config.ts";
import type { CheckResult } from "./doctor-checks.ts";
import type { formatWarnings } from "./io.ts";
import type { CliIo } from "./process-io.ts";

/** Options of doctor. */
export interface DoctorOptions {
	/** Per-check time limit (default 20 s). */
	timeoutMs?: number;
}

type Env = Record<string, string | undefined>;

/** Which checks a bad variable spoils (they fail naming it instead of running on a default). */
const SPOILS: Record<string, string> = {
	LEARNHARNESS_STORE_URL: "store",
	LEARNHARNESS_CHROMIUM_PATH: "chromium",
	PUPPETEER_EXECUTABLE_PATH: "chromium",
	OPENAI_API_KEY: "model",
	OPENAI_BASE_URL: "model",
	LEARNHARNESS_MODEL: "model",
	LEARNHARNESS_MODEL_PROBER: "model",
	LEARNHARNESS_MODEL_TEACHER: "model",
	LEARNHARNESS_MODEL_GRADER: "model",
	ANTHROPIC_API_KEY: "model",
	ANTHROPIC_BASE_URL: "model",
	GOOGLE_GENERATIVE_AI_API_KEY: "model",
	GOOGLE_GENERATIVE_AI_BASE_URL: "model",
	DISCORD_TOKEN: "discord",
	DISCORD_API_URL: "discord",
	DISCORD_GUILD_ID: "discord",
	SLACK_BOT_TOKEN: "slack",
	SLACK_SIGNING_SECRET: "slack",
	SLACK_APP_TOKEN: "slack",
	SLACK_API_URL: "slack",
	SLACK_ADMIN_USER_IDS: "slack",
	PORT: "slack",
};

/** Runs every check, prints the table, resolves with the exit code (0 = all fine). */
export async function doctorCommand(io: CliIo, options: DoctorOptions = {}): Promise<number> {
	const timeoutMs = options.timeoutMs ?? 20_000;
	// The first line at once (the checks' code, with the store drivers, the model and Chromium's, loads after it).
	io.stdout.write(
		`Checking the configuration, Chromium and a test render, the store, the model and the platforms (each at most ${Math.round(timeoutMs / 1000)} s)...\n\n`,
	);
	const [{ parseConfig, readEnvironment }, { formatWarnings }, checks] = await Promise.all([
		import("../config.ts"),
		import("./io.ts"),
		import("./doctor-checks.ts"),
	]);
	const { checkChromium, checkDiscord, checkModel, checkModels, checkRender, checkSlack, checkStore } = checks;
	const results: CheckResult[] = [];
	let env: Env;
	try {
		env = readEnvironment({ env: io.env, ...(io.dotenvPath !== undefined ? { dotenvPath: io.dotenvPath } : {}) });
	} catch (error) {
		io.stdout.write(`${error instanceof Error ? error.message : String(error)}\n`);
		return 1;
	}
	const { config, problems, warnings } = configForChecks(env, parseConfig);
	results.push(configRow(problems, warnings, formatWarnings));
	const spoiled = new Map<string, string[]>();
	for (const p of problems) {
		const check = SPOILS[p.variable];
		if (check) spoiled.set(check, [...(spoiled.get(check) ?? []), p.variable]);
	}
	const guarded = async (name: string, run: (c: Config) => Promise<CheckResult>): Promise<CheckResult> => {
		const bad = spoiled.get(name);
		if (bad) return { name, status: "fail", detail: `${bad.join(", ")} is invalid (see configuration above)` };
		if (!config) return { name, status: "skip", detail: "fix the configuration first" };
		return run(config);
	};
	const chromium = await guarded("chromium", (c) => checkChromium(c.chromiumPath, timeoutMs));
	results.push(chromium);
	results.push(
		chromium.status !== "fail"
			? await guarded("plan picture", (c) => checkRender(c.chromiumPath, timeoutMs))
			: {
					name: "plan picture",
					status: "fail",
					detail: "needs Chromium (see above); lessons fall back to a text outline",
				},
	);
	results.push(await guarded("store", (c) => checkStore(c.storeUrl, timeoutMs)));
	const models = spoiled.has("model") || !config ? undefined : await checkModels(config, timeoutMs);
	results.push(...(models ?? [await guarded("model", (c) => checkModel(c, timeoutMs))]));
	results.push(await guarded("discord", (c) => checkDiscord(c.discord, timeoutMs)));
	results.push(await guarded("slack", (c) => checkSlack(c.slack, timeoutMs)));
	const columns = (io.stdout as { columns?: number }).columns;
	io.stdout.write(`${formatTable(results, io.stdout.isTTY === true ? columns : undefined)}\n`);
	const failed = results.filter((r) => r.status === "fail");
	io.stdout.write(
		failed.length === 0
			? "\nAll checks passed.\n"
			: `\n${failed.length} check${failed.length === 1 ? "" : "s"} failed: ${failed.map((r) => r.name).join(", ")}.\n`,
	);
	return failed.length === 0 ? 0 : 1;
}

/** The config, or one built without the bad variables (so the other checks still run). */
function configForChecks(
	env: Env,
	parse: typeof parseConfig,
): { config?: Config; problems: ConfigProblem[]; warnings: ConfigProblem[] } {
	const first = parse(env);
	if (first.ok) return { config: first.config, problems: [], warnings: first.warnings };
	const reduced = { ...env };
	for (const p of first.problems) delete reduced[p.variable];
	const second = parse(reduced);
	return {
		...(second.ok ? { config: second.config } : {}),
		problems: first.problems,
		warnings: first.warnings,
	};
}

function configRow(problems: ConfigProblem[], warnings: ConfigProblem[], format: typeof formatWarnings): CheckResult {
	const lines = [
		...problems.map((p) => `${p.variable} ${p.problem}. Fix: ${p.fix}`),
		...(warnings.length > 0 ? [format(warnings)] : []),
	];
	if (problems.length > 0) return { name: "configuration", status: "fail", detail: lines.join("\n") };
	if (warnings.length > 0) return { name: "configuration", status: "warn", detail: lines.join("\n") };
	return { name: "configuration", status: "ok", detail: "environment and .env are valid" };
}

const STATUS_TEXT: Record<CheckResult["status"], string> = { ok: "ok", warn: "warn", fail: "FAIL", skip: "skip" };

/** The results as an aligned text table; details wrap at word boundaries to `width` columns when given. */
export function formatTable(results: readonly CheckResult[], width?: number): string {
	const nameWidth = Math.max(5, ...results.map((r) => r.name.length));
	const indent = nameWidth + 10;
	const head = `${"check".padEnd(nameWidth)}  status  detail`;
	const room = width !== undefined && width - indent >= 30 ? width - indent - 1 : undefined;
	const rows = results.map((r) => {
		const lines = r.detail.split("\n").flatMap((line) => (room === undefined ? [line] : wrapLine(line, room)));
		const [first = "", ...rest] = lines;
		const pad = " ".repeat(indent);
		return [
			`${r.name.padEnd(nameWidth)}  ${STATUS_TEXT[r.status].padEnd(6)}  ${first}`,
			...rest.map((l) => pad + l),
		].join("\n");
	});
	const rule = "-".repeat(Math.min(width !== undefined ? width - 1 : 80, indent + 60));
	return [head, rule, ...rows].join("\n");
}

/** Breaks a line at spaces into pieces of at most `width` characters (a longer word stands alone). */
export function wrapLine(line: string, width: number): string[] {
	const out: string[] = [];
	let current = "";
	for (const word of line.split(" ")) {
		if (current !== "" && current.length + 1 + word.length > width) {
			out.push(current);
			current = word;
		} else current = current === "" ? word : `${current} ${word}`;
	}
	out.push(current);
	return out;
}
