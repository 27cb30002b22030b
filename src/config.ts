/**
 * Configuration: the environment plus `.env`, validated once with zod into a
 * typed Config. Every problem names the variable and its fix, all at once, so
 * an admin fixes a setup in one pass instead of one crash at a time.
 */

import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseDotenv } from "dotenv";
import type { ProviderSettings } from "./agent/models/index.ts";
import { redactUrl } from "./agent/store/store-url.ts";
import type { ConfigProblem, VariableSpec } from "./config/entries.ts";
import { checkModelSettings, JOB_VARIABLE, MODEL_JOBS, type ModelJob } from "./config/models.ts";
import {
	DEFAULT_DASHBOARD_HOST,
	DEFAULT_DASHBOARD_PORT,
	DEFAULT_OPENAI_MODEL,
	DEFAULT_PORT,
	DEFAULT_STORE_URL,
	type LogLevel,
	modelSeesImages,
	VARIABLES,
} from "./config/variables.ts";

/** A URL with its password replaced by `***` (one definition, beside the store that opens the URL). */
export { redactUrl } from "./agent/store/store-url.ts";
export type { ConfigEntry, ConfigProblem } from "./config/entries.ts";
export {
	configTable,
	configTableMarkdown,
	DEFAULT_OPENAI_MODEL,
	DEFAULT_STORE_URL,
	type LogLevel,
} from "./config/variables.ts";

/** The validated configuration. */
export interface Config {
	/**
	 * LEARNHARNESS_MODEL (`id`), the per-job settings, the providers' access (OpenAI's: apiKey, baseUrl), and
	 * `vision`: the model reads pictures learners attach (LEARNHARNESS_MODEL_VISION, resolved; never for the demo).
	 */
	model: { id: string; demo: boolean; vision: boolean; jobs?: Partial<Record<ModelJob, string>> } & ProviderSettings;
	storeUrl: string;
	logLevel: LogLevel;
	/** The total deadline of one model request in ms (LEARNHARNESS_MODEL_TIMEOUT_MS); undefined: the tutor's default. */
	modelTimeoutMs?: number;
	/** OpenTelemetry spans per model step (LEARNHARNESS_TELEMETRY=1). */
	telemetry?: boolean;
	/** The browser for plan pictures; undefined lets the renderer find one. */
	chromiumPath?: string;
	/** Warm pages of the plan renderer (LEARNHARNESS_RENDER_PAGES); undefined: the renderer's default. */
	renderPages?: number;
	/** Loop delay (ms) above which turns are held back (LEARNHARNESS_TURN_LAG_MS); 0: never; undefined: the tutor's default. */
	turnLagMs?: number;
	/** Days lessons are kept where a community set none (LEARNHARNESS_RETENTION_DAYS); undefined: 365. */
	retentionDays?: number;
	/** A port of its own for /healthz and /readyz (LEARNHARNESS_HEALTH_PORT). */
	healthPort?: number;
	/**
	 * The admins' web dashboard (docs/dashboard.md), set when LEARNHARNESS_DASHBOARD_SECRET is: the links' HMAC key,
	 * where it listens, and the URL links start with.
	 */
	dashboard?: { secret: string; host: string; port: number; publicUrl?: string };
	/** Set when DISCORD_TOKEN is. */
	discord?: { token: string; apiUrl?: string; guildId?: string; shards?: number | "auto" };
	/** Set when SLACK_BOT_TOKEN is. */
	slack?: {
		botToken: string;
		signingSecret: string;
		appToken?: string;
		apiUrl?: string;
		port: number;
		adminUserIds: string[];
	};
}

/** Thrown by loadConfig when the configuration is not usable; `problems` lists every issue. */
export class ConfigError extends Error {
	readonly code = "config-invalid";
	constructor(readonly problems: ConfigProblem[]) {
		super(formatConfigProblems(problems));
		this.name = "ConfigError";
	}
}

/** parseConfig's verdict; warnings are things that work but look wrong. */
export type ConfigResult =
	| { ok: true; config: Config; warnings: ConfigProblem[] }
	| { ok: false; problems: ConfigProblem[]; warnings: ConfigProblem[] };

type Env = Record<string, string | undefined>;

/** Validates an environment (pure: no files, no process.env). Empty values count as unset. */
export function parseConfig(env: Env): ConfigResult {
	const problems: ConfigProblem[] = [];
	const warnings: ConfigProblem[] = [];
	const v: Record<string, unknown> = {};
	for (const spec of VARIABLES) {
		const raw = env[spec.name]?.trim();
		if (raw === undefined || raw === "") continue;
		const parsed = spec.schema.safeParse(raw);
		if (parsed.success) v[spec.name] = parsed.data;
		else problems.push(problemOf(spec, raw, parsed.error.issues[0]?.message ?? "is invalid"));
	}
	const str = (name: string): string | undefined => (typeof v[name] === "string" ? (v[name] as string) : undefined);
	const need = (variable: string, problem: string, fix: string) => problems.push({ variable, problem, fix });
	const warn = (variable: string, problem: string, fix: string) => warnings.push({ variable, problem, fix });

	const apiKey = str("OPENAI_API_KEY");
	const baseUrl = str("OPENAI_BASE_URL");
	let modelId = str("LEARNHARNESS_MODEL");
	if (modelId === undefined) {
		if (apiKey) modelId = DEFAULT_OPENAI_MODEL;
		else if (baseUrl)
			need(
				"LEARNHARNESS_MODEL",
				"is unset, but OPENAI_BASE_URL points at a server whose models learnharness cannot guess",
				"Set LEARNHARNESS_MODEL to a model the server serves (e.g. llama3.1:8b for Ollama).",
			);
		else modelId = "demo";
	}
	const demo = modelId === "demo";
	const jobs = Object.fromEntries(MODEL_JOBS.map((job) => [job, str(JOB_VARIABLE[job])])) as Record<
		ModelJob,
		string | undefined
	>;
	const anthropic = { apiKey: str("ANTHROPIC_API_KEY"), baseUrl: str("ANTHROPIC_BASE_URL") };
	const google = { apiKey: str("GOOGLE_GENERATIVE_AI_API_KEY"), baseUrl: str("GOOGLE_GENERATIVE_AI_BASE_URL") };
	const models =
		modelId === undefined
			? { problems: [], real: false }
			: checkModelSettings({
					model: modelId,
					jobs,
					openaiKey: apiKey,
					baseUrl,
					anthropicKey: anthropic.apiKey,
					googleKey: google.apiKey,
				});
	problems.push(...models.problems);

	const discordToken = str("DISCORD_TOKEN");
	for (const name of ["DISCORD_API_URL", "DISCORD_GUILD_ID", "DISCORD_SHARDS"])
		if (!discordToken && v[name] !== undefined)
			warn(name, "is set but DISCORD_TOKEN is not, so Discord stays off", "Set DISCORD_TOKEN.");

	const botToken = str("SLACK_BOT_TOKEN");
	const signingSecret = str("SLACK_SIGNING_SECRET");
	const appToken = str("SLACK_APP_TOKEN");
	if (botToken && !signingSecret)
		need(
			"SLACK_SIGNING_SECRET",
			"is unset, but SLACK_BOT_TOKEN is set (Slack needs both)",
			"Copy it from your Slack app → Basic Information → App Credentials → Signing Secret.",
		);
	if (!botToken)
		for (const name of ["SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL", "SLACK_ADMIN_USER_IDS"])
			if (v[name] !== undefined)
				warn(name, "is set but SLACK_BOT_TOKEN is not, so Slack stays off", "Set SLACK_BOT_TOKEN (starts with xoxb-).");
	for (const [name, token, prefix] of [
		["SLACK_BOT_TOKEN", botToken, "xoxb-"],
		["SLACK_APP_TOKEN", appToken, "xapp-"],
	] as const)
		if (token && !token.startsWith(prefix)) warn(name, `does not start with ${prefix}`, specOf(name).fix);
	if (apiKey && demo)
		warn(
			"LEARNHARNESS_MODEL",
			"is demo although OPENAI_API_KEY is set: the key is unused",
			`Remove LEARNHARNESS_MODEL=demo to use ${DEFAULT_OPENAI_MODEL}, or name another model.`,
		);

	const dashboardSecret = str("LEARNHARNESS_DASHBOARD_SECRET");
	if (!dashboardSecret)
		for (const name of ["LEARNHARNESS_DASHBOARD_HOST", "LEARNHARNESS_DASHBOARD_PORT", "LEARNHARNESS_PUBLIC_URL"])
			if (v[name] !== undefined)
				warn(
					name,
					"is set but LEARNHARNESS_DASHBOARD_SECRET is not, so the dashboard stays off",
					specOf("LEARNHARNESS_DASHBOARD_SECRET").fix,
				);

	const visionSetting = str("LEARNHARNESS_MODEL_VISION") as "auto" | "on" | "off" | undefined;
	if (demo && visionSetting === "on")
		warn(
			"LEARNHARNESS_MODEL_VISION",
			"is on, but the demo model cannot read pictures (learners are told so)",
			"Set a model that reads images (OPENAI_API_KEY with e.g. gpt-4.1-mini), or remove the line.",
		);

	if (problems.length > 0 || modelId === undefined) return { ok: false, problems, warnings };
	const config: Config = {
		model: { id: modelId, demo, vision: modelSeesImages(modelId, visionSetting) },
		storeUrl: str("LEARNHARNESS_STORE_URL") ?? DEFAULT_STORE_URL,
		logLevel: (str("LEARNHARNESS_LOG_LEVEL") as LogLevel | undefined) ?? "info",
	};
	if (models.real && apiKey) config.model.apiKey = apiKey;
	if (models.real && baseUrl) config.model.baseUrl = baseUrl;
	if (MODEL_JOBS.some((job) => jobs[job])) config.model.jobs = defined(jobs);
	if (models.real && anthropic.apiKey) config.model.anthropic = defined(anthropic);
	if (models.real && google.apiKey) config.model.google = defined(google);
	if (typeof v.LEARNHARNESS_MODEL_TIMEOUT_MS === "number") config.modelTimeoutMs = v.LEARNHARNESS_MODEL_TIMEOUT_MS;
	if (str("LEARNHARNESS_TELEMETRY") === "1") config.telemetry = true;
	const chromium = str("LEARNHARNESS_CHROMIUM_PATH") ?? str("PUPPETEER_EXECUTABLE_PATH");
	if (chromium) config.chromiumPath = chromium;
	if (typeof v.LEARNHARNESS_RENDER_PAGES === "number") config.renderPages = v.LEARNHARNESS_RENDER_PAGES;
	if (typeof v.LEARNHARNESS_TURN_LAG_MS === "number") config.turnLagMs = v.LEARNHARNESS_TURN_LAG_MS;
	if (typeof v.LEARNHARNESS_RETENTION_DAYS === "number") config.retentionDays = v.LEARNHARNESS_RETENTION_DAYS;
	if (typeof v.LEARNHARNESS_HEALTH_PORT === "number") config.healthPort = v.LEARNHARNESS_HEALTH_PORT;
	if (dashboardSecret) {
		const host = str("LEARNHARNESS_DASHBOARD_HOST") ?? DEFAULT_DASHBOARD_HOST;
		const port =
			typeof v.LEARNHARNESS_DASHBOARD_PORT === "number" ? v.LEARNHARNESS_DASHBOARD_PORT : DEFAULT_DASHBOARD_PORT;
		const publicUrl = str("LEARNHARNESS_PUBLIC_URL");
		config.dashboard = { secret: dashboardSecret, host, port, ...(publicUrl ? { publicUrl } : {}) };
	}
	if (discordToken) {
		config.discord = { token: discordToken };
		const apiUrl = str("DISCORD_API_URL");
		const guildId = str("DISCORD_GUILD_ID");
		if (apiUrl) config.discord.apiUrl = apiUrl;
		if (guildId) config.discord.guildId = guildId;
		const shards = v.DISCORD_SHARDS;
		if (shards === "auto" || typeof shards === "number") config.discord.shards = shards;
	}
	if (botToken && signingSecret) {
		const admins = str("SLACK_ADMIN_USER_IDS");
		config.slack = {
			botToken,
			signingSecret,
			port: typeof v.PORT === "number" ? v.PORT : DEFAULT_PORT,
			adminUserIds: admins ? admins.split(",").map((s) => s.trim()) : [],
		};
		const apiUrl = str("SLACK_API_URL");
		if (appToken) config.slack.appToken = appToken;
		if (apiUrl) config.slack.apiUrl = apiUrl;
	}
	return { ok: true, config, warnings };
}

/** Options of loadConfig. */
export interface LoadConfigOptions {
	/** The environment (default process.env); it wins over `.env`. */
	env?: Env;
	/** The `.env` file (default ./.env); false to skip it. A missing file is fine. */
	dotenvPath?: string | false;
}

/** Reads `.env` and the environment, validates once; throws ConfigError listing every problem. */
export function loadConfig(options: LoadConfigOptions = {}): { config: Config; warnings: ConfigProblem[] } {
	const env = readEnvironment(options);
	const result = parseConfig(env);
	if (!result.ok) throw new ConfigError(result.problems);
	return { config: result.config, warnings: result.warnings };
}

/** The merged environment: `.env` values under the real environment's. */
export function readEnvironment(options: LoadConfigOptions = {}): Env {
	const env = options.env ?? process.env;
	if (options.dotenvPath === false) return { ...env };
	const path = resolve(options.dotenvPath ?? ".env");
	if (!existsSync(path)) return { ...env };
	let fromFile: Env;
	try {
		fromFile = parseDotenv(readFileSync(path));
	} catch (error) {
		throw new ConfigError([
			{
				variable: ".env",
				problem: `cannot be read (${error instanceof Error ? error.message : String(error)})`,
				fix: `Check the file at ${path}: one NAME=value a line.`,
			},
		]);
	}
	return { ...fromFile, ...env };
}

/** Problems as lines a person can act on. */
export function formatConfigProblems(problems: readonly ConfigProblem[]): string {
	const lines = problems.map((p) => `  - ${p.variable} ${p.problem}.\n    Fix: ${p.fix}`);
	return `The configuration has ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${lines.join("\n")}`;
}

/** The object without its undefined fields (the config's optional fields are absent, not undefined). */
function defined<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
	return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
		[K in keyof T]?: Exclude<T[K], undefined>;
	};
}

function specOf(name: string): VariableSpec {
	const spec = VARIABLES.find((s) => s.name === name);
	if (!spec) throw new Error(`unknown variable ${name}`);
	return spec;
}

function problemOf(spec: VariableSpec, raw: string, message: string): ConfigProblem {
	// Secrets are never echoed back; other values are, so the admin sees the typo.
	const secret = /TOKEN|KEY|SECRET/.test(spec.name);
	const value = redactUrl(raw);
	const shown = secret ? "" : ` (${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)})`;
	return { variable: spec.name, problem: `${message}${shown}`, fix: spec.fix };
}
