/**
 * Every environment variable learnharness reads: its zod schema, its default,
 * what it means and how to fix a bad value. The single source of the
 * configuration table (README, docs/configuration.md, `doctor`).
 */

import { z } from "zod";
import { DEFAULT_STORE_URL } from "../agent/store/store-url.ts";
import type { ConfigEntry, VariableSpec } from "./entries.ts";
import { JOB_MODEL_VARIABLES, modelSetting, PROVIDER_VARIABLES } from "./provider-variables.ts";
import { sqliteFileOf, systemFolderOf } from "./store-path.ts";

/** The model used when OPENAI_API_KEY is set and LEARNHARNESS_MODEL is not. */
export const DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";
/**
 * Model ids that read images (LEARNHARNESS_MODEL_VISION=auto): OpenAI's gpt-4o*, gpt-4.1*, gpt-5*, o3*, o4*
 * (bare or `openai:`), and every `anthropic:claude-*` and `google:gemini-*` model.
 */
export const VISION_MODEL_PATTERN =
	/^(?:(?:openai[/:])?(?:gpt-4o|gpt-4\.1|gpt-5|o3|o4)(?:$|[-.:])|anthropic:claude-|google:gemini-)/i;

/** Whether a model reads images under a LEARNHARNESS_MODEL_VISION setting; the demo never does. */
export function modelSeesImages(modelId: string, setting: "auto" | "on" | "off" = "auto"): boolean {
	if (modelId === "demo" || setting === "off") return false;
	return setting === "on" || VISION_MODEL_PATTERN.test(modelId);
}

/** The default store (defined beside the store, agent/store/store-url.ts): an embedded SQLite file. */
export { DEFAULT_STORE_URL };
/** The default HTTP port (Slack's Events API receiver when Socket Mode is off). */
export const DEFAULT_PORT = 3000;
/** The default total deadline of one model request (LEARNHARNESS_MODEL_TIMEOUT_MS). */
export const DEFAULT_MODEL_TIMEOUT_MS = 180_000;
/** pino's level names. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
/** A pino log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

const text = z.string().trim().min(1);
const httpUrl = z.url({ protocol: /^https?$/, error: "is not an http(s) URL" });
const STORE_SCHEMES = ["sqlite", "redis", "rediss", "postgres", "postgresql"];
const storeUrl = text
	.refine(
		(v) => {
			const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(v)?.[1]?.toLowerCase();
			return scheme !== undefined && STORE_SCHEMES.includes(scheme) && v.length > scheme.length + 3;
		},
		{ error: "is not a store URL (sqlite://…, redis://… or postgres://…)" },
	)
	.refine(
		(v) => {
			const file = sqliteFileOf(v);
			return file === undefined || systemFolderOf(file) === undefined;
		},
		{ error: "puts the SQLite file under /proc, /sys or /dev, which cannot hold files" },
	);
/** A whole number from `min` to `max` (`unit`: what it is a whole number of; `below`: the message under `min`). */
function wholeNumber(min: number, max?: number, o: { unit?: string; below?: string; nan?: string } = {}) {
	const n = z.coerce
		.number({ error: o.nan ?? "is not a number" })
		.int({ error: `is not a whole ${o.unit ?? "number"}` })
		.min(min, { error: o.below ?? `is below ${min}` });
	return max === undefined ? n : n.max(max, { error: `is above ${max}` });
}
const port = wholeNumber(0, 65_535, { below: "is negative" });
const snowflake = text.regex(/^\d{5,25}$/, { error: "is not a Discord id (digits only)" });
/** DISCORD_SHARDS and `start --shards`: `auto` or a shard count. */
export const shardSetting = z.union([z.literal("auto"), wholeNumber(1, 4096, { nan: "is not auto or a number" })]);
const idList = text.regex(/^[A-Za-z0-9_]+(\s*,\s*[A-Za-z0-9_]+)*$/, {
	error: "is not a comma-separated list of user ids",
});

/** The dashboard's default port (LEARNHARNESS_DASHBOARD_PORT). */
export const DEFAULT_DASHBOARD_PORT = 3100;
/** The dashboard's default address (LEARNHARNESS_DASHBOARD_HOST): this machine only. */
export const DEFAULT_DASHBOARD_HOST = "127.0.0.1";
/** Fewest characters of LEARNHARNESS_DASHBOARD_SECRET (the HMAC key of sign-in links). */
export const DASHBOARD_SECRET_MIN_CHARS = 32;

/** All variables, in the order the table shows them. */
export const VARIABLES: readonly VariableSpec[] = [
	{
		name: "OPENAI_API_KEY",
		default: "(unset: the demo model)",
		description: "API key for OpenAI, or for the OpenAI-compatible server at OPENAI_BASE_URL.",
		schema: text,
		fix: "Paste the key from https://platform.openai.com/api-keys, or remove the line to use the demo model.",
	},
	{
		name: "OPENAI_BASE_URL",
		default: "(unset: api.openai.com)",
		description:
			"An OpenAI-compatible server speaking chat completions (Ollama, vLLM, llama.cpp, LM Studio), e.g. http://127.0.0.1:11434/v1.",
		schema: httpUrl,
		fix: "Use the server's base URL including /v1, e.g. OPENAI_BASE_URL=http://127.0.0.1:11434/v1.",
	},
	...PROVIDER_VARIABLES,
	{
		name: "LEARNHARNESS_MODEL",
		default: `demo without a key; ${DEFAULT_OPENAI_MODEL} with one`,
		description:
			"`provider:model` (openai, anthropic, google, compatible), a bare id (OpenAI's, or the OPENAI_BASE_URL server's), or `demo`.",
		schema: modelSetting,
		fix: `Use provider:model (e.g. openai:${DEFAULT_OPENAI_MODEL}, anthropic:claude-sonnet-4-5, compatible:llama3.1:8b), a bare id, or demo.`,
	},
	...JOB_MODEL_VARIABLES,
	{
		name: "LEARNHARNESS_MODEL_VISION",
		default: "auto",
		description:
			"Whether the model reads pictures learners attach (PNG, JPEG, GIF, WebP up to 5 MB, 4 a message): `on`, `off`, or `auto` (on for gpt-4o, gpt-4.1, gpt-5, o3, o4, anthropic:claude-* and google:gemini-*; off for others and the demo).",
		schema: z.enum(["auto", "on", "off"], { error: "is not auto, on or off" }),
		fix: "Use LEARNHARNESS_MODEL_VISION=on for a model that reads images (e.g. llava, qwen2.5-vl), off, or auto.",
	},
	{
		name: "LEARNHARNESS_STORE_URL",
		default: DEFAULT_STORE_URL,
		description:
			"Where sessions live: `sqlite://./path.sqlite`, `redis://host:6379` or `postgres://user:pass@host/db`.",
		schema: storeUrl,
		fix: `Use e.g. ${DEFAULT_STORE_URL}, redis://127.0.0.1:6379 or postgres://user:pass@127.0.0.1:5432/learnharness.`,
	},
	{
		name: "LEARNHARNESS_LOG_LEVEL",
		default: "info",
		description: `Log level: ${LOG_LEVELS.join(", ")}. The playground logs to data/learnharness.log.`,
		schema: z.enum(LOG_LEVELS, { error: `is not one of ${LOG_LEVELS.join(", ")}` }),
		fix: `Use one of ${LOG_LEVELS.join(", ")}.`,
	},
	{
		name: "LEARNHARNESS_MODEL_TIMEOUT_MS",
		default: String(DEFAULT_MODEL_TIMEOUT_MS),
		description:
			"Most milliseconds one model request may take, however steadily it streams (then it is retried, then the learner is told).",
		schema: wholeNumber(1_000, undefined, { unit: "number of milliseconds", below: "is below 1000 (one second)" }),
		fix: `Use a whole number of milliseconds of at least 1000, e.g. LEARNHARNESS_MODEL_TIMEOUT_MS=${DEFAULT_MODEL_TIMEOUT_MS}.`,
	},
	{
		name: "LEARNHARNESS_TELEMETRY",
		default: "0",
		description:
			"`1`: an OpenTelemetry span per model step (model, agent, tokens, finish reason, error) to the tracer provider the process registers.",
		schema: z.enum(["0", "1"], { error: "is not 0 or 1" }),
		fix: "Use LEARNHARNESS_TELEMETRY=1 to turn spans on, or 0 (or remove the line) to keep them off.",
	},
	{
		name: "LEARNHARNESS_CHROMIUM_PATH",
		default: "(unset: PUPPETEER_EXECUTABLE_PATH, then /usr/bin/chromium)",
		description: "The Chromium binary that draws plan pictures (wins over PUPPETEER_EXECUTABLE_PATH).",
		schema: text,
		fix: "Point it at a Chromium or Chrome binary, e.g. /usr/bin/chromium (`npm run setup` installs one).",
	},
	{
		name: "LEARNHARNESS_RENDER_PAGES",
		default: "2",
		description:
			"Warm Chromium pages drawing plan pictures in parallel (1 to 8; each costs memory, two doubled throughput).",
		schema: wholeNumber(1, 8),
		fix: "Use a whole number from 1 to 8, e.g. LEARNHARNESS_RENDER_PAGES=2.",
	},
	{
		name: "LEARNHARNESS_TURN_LAG_MS",
		default: "10",
		description:
			"Event-loop delay (ms) above which a busy process holds new turns back, so clicks and forms are still acknowledged in time (0 turns it off; up to 1000).",
		schema: wholeNumber(0, 1000),
		fix: "Use a whole number of milliseconds from 0 to 1000, e.g. LEARNHARNESS_TURN_LAG_MS=10.",
	},
	{
		name: "LEARNHARNESS_RETENTION_DAYS",
		default: "365",
		description:
			"Days a lesson (transcript, profile entry, review items) is kept after it ends, where a server or workspace set none with `/lesson retention` (1 to 3650).",
		schema: wholeNumber(1, 3650),
		fix: "Use a whole number of days from 1 to 3650, e.g. LEARNHARNESS_RETENTION_DAYS=365.",
	},
	{
		name: "PUPPETEER_EXECUTABLE_PATH",
		default: "(unset)",
		description: "Puppeteer's own variable for the browser binary; used when LEARNHARNESS_CHROMIUM_PATH is unset.",
		schema: text,
		fix: "Point it at a Chromium or Chrome binary, e.g. /usr/bin/chromium.",
	},
	{
		name: "DISCORD_TOKEN",
		default: "(unset: Discord off)",
		description:
			"The bot token (Discord Developer Portal → your app → Bot → Reset Token). Turns the Discord adapter on.",
		schema: text.regex(/^\S+$/, { error: "contains spaces" }),
		fix: "Copy the bot token again from the Developer Portal (Bot → Reset Token); no quotes, no 'Bot ' prefix.",
	},
	{
		name: "DISCORD_API_URL",
		default: "(unset: https://discord.com/api)",
		description: "Another Discord REST base URL (tests, proxies).",
		schema: httpUrl,
		fix: "Use an http(s) URL such as https://discord.com/api, or remove the line.",
	},
	{
		name: "DISCORD_GUILD_ID",
		default: "(unset: global commands)",
		description: "Register slash commands in this server only (instant; global commands take up to an hour).",
		schema: snowflake,
		fix: "Copy the server id (Developer Mode → right-click the server → Copy Server ID).",
	},
	{
		name: "DISCORD_SHARDS",
		default: "(unset: one process)",
		description:
			"`auto` (Discord's recommended count) or a number: run Discord as that many shard processes under discord.js's ShardingManager (as `start --shards`). Needs a shared store (Redis or PostgreSQL).",
		schema: shardSetting,
		fix: "Use auto or a whole number from 1 to 4096, e.g. DISCORD_SHARDS=auto.",
	},
	{
		name: "SLACK_BOT_TOKEN",
		default: "(unset: Slack off)",
		description: "The Bot User OAuth Token (xoxb-…). Turns the Slack adapter on.",
		schema: text.regex(/^\S+$/, { error: "contains spaces" }),
		fix: "Copy it from your Slack app → OAuth & Permissions → Bot User OAuth Token (starts with xoxb-).",
	},
	{
		name: "SLACK_SIGNING_SECRET",
		default: "(unset)",
		description: "Verifies that requests come from Slack (Basic Information → Signing Secret).",
		schema: text,
		fix: "Copy it from your Slack app → Basic Information → App Credentials → Signing Secret.",
	},
	{
		name: "SLACK_APP_TOKEN",
		default: "(unset: HTTP mode on PORT)",
		description: "An app-level token (xapp-…, scope connections:write): Socket Mode, no public URL needed.",
		schema: text.regex(/^\S+$/, { error: "contains spaces" }),
		fix: "Create one under Basic Information → App-Level Tokens with the connections:write scope (starts with xapp-).",
	},
	{
		name: "SLACK_API_URL",
		default: "(unset: https://slack.com/api/)",
		description: "Another Slack Web API base URL (tests, proxies).",
		schema: httpUrl,
		fix: "Use an http(s) URL such as https://slack.com/api/, or remove the line.",
	},
	{
		name: "SLACK_ADMIN_USER_IDS",
		default: "(unset: workspace admins only)",
		description: "Comma-separated Slack user ids allowed to run admin subcommands, besides workspace admins.",
		schema: idList,
		fix: "Use Slack member ids separated by commas, e.g. U012AB3CD,U045EF6GH (profile → ⋮ → Copy member ID).",
	},
	{
		name: "PORT",
		default: String(DEFAULT_PORT),
		description: "HTTP port of Slack's Events API receiver (when SLACK_APP_TOKEN is unset).",
		schema: port,
		fix: "Use a free port number between 1 and 65535, e.g. PORT=3000 (0 picks any free port).",
	},
	{
		name: "LEARNHARNESS_HEALTH_PORT",
		default: "(unset: on PORT when Slack runs over HTTP, else none)",
		description:
			"A port of its own for `/healthz` and `/readyz` (load balancers, orchestrators); needed for health checks when only Discord or Socket Mode runs.",
		schema: port,
		fix: "Use a free port number between 1 and 65535 other than PORT, e.g. LEARNHARNESS_HEALTH_PORT=8080.",
	},
	{
		name: "LEARNHARNESS_DASHBOARD_SECRET",
		default: "(unset: the dashboard is off)",
		description: `The key (at least ${DASHBOARD_SECRET_MIN_CHARS} characters) that signs the admins' one-time sign-in links of the web dashboard (\`/lesson dashboard\`); setting it turns the dashboard on. Every process on the store needs the same one.`,
		schema: text.min(DASHBOARD_SECRET_MIN_CHARS, { error: `is shorter than ${DASHBOARD_SECRET_MIN_CHARS} characters` }),
		fix: "Use a long random string, e.g. the output of `openssl rand -base64 48`.",
	},
	{
		name: "LEARNHARNESS_DASHBOARD_HOST",
		default: DEFAULT_DASHBOARD_HOST,
		description:
			"The address the dashboard listens on (127.0.0.1: this machine only, behind a reverse proxy; 0.0.0.0: every interface).",
		schema: text.regex(/^[A-Za-z0-9.:[\]-]+$/, { error: "is not a host name or IP address" }),
		fix: "Use an IP address or host name, e.g. LEARNHARNESS_DASHBOARD_HOST=127.0.0.1.",
	},
	{
		name: "LEARNHARNESS_DASHBOARD_PORT",
		default: String(DEFAULT_DASHBOARD_PORT),
		description: "The dashboard's HTTP port (its own; 0 picks any free port).",
		schema: port,
		fix: `Use a free port number between 1 and 65535, e.g. LEARNHARNESS_DASHBOARD_PORT=${DEFAULT_DASHBOARD_PORT}.`,
	},
	{
		name: "LEARNHARNESS_PUBLIC_URL",
		default: "(unset: http://<dashboard host>:<port>)",
		description:
			"How people reach the dashboard from outside (the reverse proxy's https URL); sign-in links start with it, and an https URL makes the session cookie Secure.",
		schema: httpUrl,
		fix: "Use the URL the reverse proxy serves the dashboard at, e.g. LEARNHARNESS_PUBLIC_URL=https://tutor.example.org.",
	},
];

/** The configuration table (name, default, description) for docs and `doctor`. */
export function configTable(): ConfigEntry[] {
	return VARIABLES.map(({ name, default: def, description }) => ({ name, default: def, description }));
}

/** The table as markdown, columns aligned the way the formatter (Biome) writes tables. */
export function configTableMarkdown(): string {
	const esc = (s: string): string => s.replaceAll("|", "\\|");
	const rows = [
		["variable", "default", "what it does"],
		...configTable().map((e) => [`\`${e.name}\``, esc(e.default), esc(e.description)]),
	];
	const width = (s: string): number => [...s].length;
	const widths = [0, 1, 2].map((i) => Math.max(3, ...rows.map((r) => width(r[i] ?? ""))));
	const line = (cells: string[]): string =>
		`| ${cells.map((c, i) => c + " ".repeat((widths[i] ?? 0) - width(c))).join(" | ")} |`;
	const [head = [], ...body] = rows;
	return [line(head), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...body.map(line)].join("\n");
}
