import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
	ConfigError,
	configTable,
	configTableMarkdown,
	DEFAULT_OPENAI_MODEL,
	DEFAULT_STORE_URL,
	loadConfig,
	parseConfig,
	redactUrl,
} from "../../src/config.ts";

const problemsOf = (env: Record<string, string>) => {
	const r = parseConfig(env);
	return r.ok ? [] : r.problems;
};

describe("config", () => {
	it("defaults to the demo model and the SQLite store with nothing set", () => {
		const r = parseConfig({});
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		expect(r.config.model).toEqual({ id: "demo", demo: true, vision: false });
		expect(r.config.storeUrl).toBe(DEFAULT_STORE_URL);
		expect(r.config.logLevel).toBe("info");
		expect(r.config.discord).toBeUndefined();
		expect(r.config.slack).toBeUndefined();
	});

	it("picks a real OpenAI model by default when a key is set", () => {
		const r = parseConfig({ OPENAI_API_KEY: "sk-test" });
		expect(r.ok && r.config.model).toEqual({ id: DEFAULT_OPENAI_MODEL, demo: false, vision: true, apiKey: "sk-test" });
	});

	it("treats empty values as unset (a .env template with blanks)", () => {
		const r = parseConfig({ OPENAI_API_KEY: "", DISCORD_TOKEN: "  ", PORT: "" });
		expect(r.ok && r.config.model.demo).toBe(true);
		expect(r.ok && r.config.discord).toBeUndefined();
	});

	it("names each bad variable with its fix, all at once", () => {
		const problems = problemsOf({
			LEARNHARNESS_STORE_URL: "mysql://x",
			PORT: "http",
			LEARNHARNESS_LOG_LEVEL: "loud",
			OPENAI_BASE_URL: "localhost:11434",
			DISCORD_GUILD_ID: "my-server",
		});
		const names = problems.map((p) => p.variable).sort();
		expect(names).toEqual(
			["DISCORD_GUILD_ID", "LEARNHARNESS_LOG_LEVEL", "LEARNHARNESS_STORE_URL", "OPENAI_BASE_URL", "PORT"].sort(),
		);
		for (const p of problems) expect(p.fix.length).toBeGreaterThan(10);
		expect(problems.find((p) => p.variable === "LEARNHARNESS_STORE_URL")?.problem).toMatch(/mysql:\/\/x/);
	});

	it("refuses a non-demo model without a key or a server", () => {
		const problems = problemsOf({ LEARNHARNESS_MODEL: "gpt-4.1" });
		expect(problems).toHaveLength(1);
		expect(problems[0]?.variable).toBe("OPENAI_API_KEY");
		expect(problems[0]?.fix).toMatch(/LEARNHARNESS_MODEL=demo/);
	});

	it("asks for a model name when only a local server is configured, and accepts it without a key", () => {
		expect(problemsOf({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" })[0]?.variable).toBe("LEARNHARNESS_MODEL");
		const r = parseConfig({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", LEARNHARNESS_MODEL: "llama3.1:8b" });
		expect(r.ok && r.config.model).toEqual({
			id: "llama3.1:8b",
			demo: false,
			vision: false,
			baseUrl: "http://127.0.0.1:11434/v1",
		});
	});

	it("decides per model whether it reads pictures (LEARNHARNESS_MODEL_VISION)", () => {
		const vision = (env: Record<string, string>) => {
			const r = parseConfig(env);
			return r.ok ? r.config.model.vision : undefined;
		};
		const key = { OPENAI_API_KEY: "sk-test" };
		for (const id of ["gpt-4o", "gpt-4o-mini", "gpt-4.1-nano", "gpt-5", "o3", "o4-mini"])
			expect(vision({ ...key, LEARNHARNESS_MODEL: id }), id).toBe(true);
		for (const id of ["gpt-3.5-turbo", "o1-mini", "gpt-4o3x", "llama3.1", "o30"])
			expect(vision({ ...key, LEARNHARNESS_MODEL: id }), id).toBe(false);
		const local = { OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" };
		expect(vision({ ...local, LEARNHARNESS_MODEL: "llava:13b", LEARNHARNESS_MODEL_VISION: "on" })).toBe(true);
		expect(vision({ ...local, LEARNHARNESS_MODEL: "llava:13b" })).toBe(false);
		expect(vision({ ...key, LEARNHARNESS_MODEL: "openai:gpt-4.1-mini" })).toBe(true);
		expect(vision({ LEARNHARNESS_MODEL: "anthropic:claude-sonnet-4-5", ANTHROPIC_API_KEY: "k" })).toBe(true);
		expect(vision({ ...key, LEARNHARNESS_MODEL: "gpt-4o", LEARNHARNESS_MODEL_VISION: "off" })).toBe(false);
		// The demo never reads pictures; asking for it is a warning, not an error.
		const demo = parseConfig({ LEARNHARNESS_MODEL_VISION: "on" });
		expect(demo.ok && demo.config.model.vision).toBe(false);
		expect(demo.warnings.map((w) => w.variable)).toContain("LEARNHARNESS_MODEL_VISION");
		expect(problemsOf({ LEARNHARNESS_MODEL_VISION: "yes" })[0]?.variable).toBe("LEARNHARNESS_MODEL_VISION");
	});

	it("never echoes a secret in a problem", () => {
		const problems = problemsOf({ DISCORD_TOKEN: "abc def-secret" });
		expect(problems[0]?.variable).toBe("DISCORD_TOKEN");
		expect(JSON.stringify(problems)).not.toMatch(/def-secret/);
	});

	it("turns the dashboard on with a long enough secret, on 127.0.0.1 by default, and warns about settings without it", () => {
		const secret = "s".repeat(40);
		const on = parseConfig({ LEARNHARNESS_DASHBOARD_SECRET: secret });
		expect(on.ok && on.config.dashboard).toEqual({ secret, host: "127.0.0.1", port: 3100 });
		const set = parseConfig({
			LEARNHARNESS_DASHBOARD_SECRET: secret,
			LEARNHARNESS_DASHBOARD_HOST: "0.0.0.0",
			LEARNHARNESS_DASHBOARD_PORT: "8080",
			LEARNHARNESS_PUBLIC_URL: "https://tutor.example.org",
		});
		expect(set.ok && set.config.dashboard).toEqual({
			secret,
			host: "0.0.0.0",
			port: 8080,
			publicUrl: "https://tutor.example.org",
		});
		const short = parseConfig({ LEARNHARNESS_DASHBOARD_SECRET: "short" });
		expect(short.ok).toBe(false);
		if (!short.ok) {
			expect(short.problems.map((p) => p.variable)).toEqual(["LEARNHARNESS_DASHBOARD_SECRET"]);
			expect(short.problems[0]?.problem).not.toContain('short"');
		}
		const off = parseConfig({ LEARNHARNESS_DASHBOARD_PORT: "8080" });
		expect(off.ok && off.config.dashboard).toBeUndefined();
		expect(off.warnings.map((w) => w.variable)).toEqual(["LEARNHARNESS_DASHBOARD_PORT"]);
	});

	it("needs the signing secret with a Slack bot token, and builds the Slack section", () => {
		expect(problemsOf({ SLACK_BOT_TOKEN: "xoxb-1" })[0]?.variable).toBe("SLACK_SIGNING_SECRET");
		const r = parseConfig({
			SLACK_BOT_TOKEN: "xoxb-1",
			SLACK_SIGNING_SECRET: "s",
			SLACK_APP_TOKEN: "xapp-1",
			SLACK_ADMIN_USER_IDS: "U1, U2",
			SLACK_API_URL: "http://127.0.0.1:9/api/",
			PORT: "8080",
		});
		expect(r.ok && r.config.slack).toEqual({
			botToken: "xoxb-1",
			signingSecret: "s",
			appToken: "xapp-1",
			apiUrl: "http://127.0.0.1:9/api/",
			port: 8080,
			adminUserIds: ["U1", "U2"],
		});
	});

	it("builds the Discord section and warns about settings that do nothing", () => {
		const r = parseConfig({ DISCORD_TOKEN: "t.o.k", DISCORD_GUILD_ID: "123456789012345678" });
		expect(r.ok && r.config.discord).toEqual({ token: "t.o.k", guildId: "123456789012345678" });
		const lonely = parseConfig({ SLACK_SIGNING_SECRET: "s", DISCORD_GUILD_ID: "123456789012345678" });
		expect(lonely.ok).toBe(true);
		expect(lonely.warnings.map((w) => w.variable).sort()).toEqual(["DISCORD_GUILD_ID", "SLACK_SIGNING_SECRET"]);
	});

	it("prefers LEARNHARNESS_CHROMIUM_PATH over PUPPETEER_EXECUTABLE_PATH", () => {
		const r = parseConfig({ PUPPETEER_EXECUTABLE_PATH: "/a", LEARNHARNESS_CHROMIUM_PATH: "/b" });
		expect(r.ok && r.config.chromiumPath).toBe("/b");
		const p = parseConfig({ PUPPETEER_EXECUTABLE_PATH: "/a" });
		expect(p.ok && p.config.chromiumPath).toBe("/a");
	});

	it("refuses a SQLite file under /proc, /sys or /dev (a store there hangs or vanishes)", () => {
		for (const url of ["sqlite:///proc/1/x.sqlite", "sqlite:///sys/x.sqlite", "sqlite:///dev/shm/x.sqlite"])
			expect(problemsOf({ LEARNHARNESS_STORE_URL: url })[0]?.problem).toMatch(/under \/proc, \/sys or \/dev/);
		expect(problemsOf({ LEARNHARNESS_STORE_URL: "sqlite:///process/x.sqlite" })).toEqual([]);
	});

	it("never echoes a password from a bad URL", () => {
		const problems = problemsOf({ LEARNHARNESS_STORE_URL: "mysql://admin:hunter2@127.0.0.1/db" });
		expect(problems[0]?.problem).toMatch(/mysql:\/\/admin:\*\*\*@127\.0\.0\.1\/db/);
		expect(JSON.stringify(problems)).not.toMatch(/hunter2/);
		expect(redactUrl("redis://:s3cret@h:6379/0")).toBe("redis://:***@h:6379/0");
		expect(redactUrl("postgres://u@h/db")).toBe("postgres://u@h/db");
	});

	it("hides passwords that hold /, #, ? or @, and secrets given as query parameters", () => {
		const cases: [string, string][] = [
			["redis://:pa/ss@h:6379/0", "redis://:***@h:6379/0"],
			["postgres://u:p#w?d@h/db", "postgres://u:***@h/db"],
			["postgres://u:p@ss@h:5432/db", "postgres://u:***@h:5432/db"],
			[
				"postgres://h/db?user=u&password=hunter2&sslmode=require",
				"postgres://h/db?user=u&password=***&sslmode=require",
			],
			["rediss://h:6380?token=abc#x", "rediss://h:6380?token=***#x"],
			["sqlite://./data/x.sqlite", "sqlite://./data/x.sqlite"],
		];
		for (const [url, shown] of cases) expect(redactUrl(url)).toBe(shown);
		for (const secret of ["pa/ss", "p#w?d", "p@ss", "hunter2", "abc"])
			expect(cases.map(([url]) => redactUrl(url)).join(" ")).not.toContain(secret);
	});

	it("accepts every store backend's URL", () => {
		for (const url of ["sqlite://./x.sqlite", "redis://127.0.0.1:6379", "postgres://u:p@127.0.0.1/db"])
			expect(problemsOf({ LEARNHARNESS_STORE_URL: url })).toEqual([]);
	});
});

describe("loadConfig and .env", () => {
	const dir = mkdtempSync(join(tmpdir(), "lh-config-"));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("reads .env under the real environment, which wins", () => {
		const path = join(dir, ".env");
		writeFileSync(path, "LEARNHARNESS_LOG_LEVEL=debug\nLEARNHARNESS_STORE_URL=sqlite://./from-file.sqlite\n");
		const { config } = loadConfig({ env: { LEARNHARNESS_STORE_URL: "sqlite://./from-env.sqlite" }, dotenvPath: path });
		expect(config.logLevel).toBe("debug");
		expect(config.storeUrl).toBe("sqlite://./from-env.sqlite");
	});

	it("is fine without a .env file", () => {
		expect(loadConfig({ env: {}, dotenvPath: join(dir, "missing.env") }).config.model.id).toBe("demo");
	});

	it("throws a ConfigError whose message lists every problem with its fix", () => {
		let error: unknown;
		try {
			loadConfig({ env: { PORT: "-1", LEARNHARNESS_STORE_URL: "nope" }, dotenvPath: false });
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(ConfigError);
		const message = (error as Error).message;
		expect(message).toMatch(/2 problems/);
		expect(message).toMatch(/PORT/);
		expect(message).toMatch(/Fix: /);
	});
});

describe("LEARNHARNESS_RETENTION_DAYS", () => {
	it("sets the default retention, and names the fix when it is out of range", () => {
		expect(loadConfig({ env: { LEARNHARNESS_RETENTION_DAYS: "90" }, dotenvPath: false }).config.retentionDays).toBe(90);
		expect(loadConfig({ env: {}, dotenvPath: false }).config.retentionDays).toBeUndefined();
		expect(() => loadConfig({ env: { LEARNHARNESS_RETENTION_DAYS: "0" }, dotenvPath: false })).toThrow(
			/LEARNHARNESS_RETENTION_DAYS[\s\S]*from 1 to 3650/,
		);
	});
});

describe("configTable", () => {
	it("lists every variable the brief names, with a default and a description", () => {
		const names = configTable().map((e) => e.name);
		for (const name of [
			"OPENAI_API_KEY",
			"OPENAI_BASE_URL",
			"LEARNHARNESS_MODEL",
			"LEARNHARNESS_STORE_URL",
			"LEARNHARNESS_LOG_LEVEL",
			"PUPPETEER_EXECUTABLE_PATH",
			"LEARNHARNESS_CHROMIUM_PATH",
			"DISCORD_TOKEN",
			"DISCORD_API_URL",
			"DISCORD_GUILD_ID",
			"SLACK_BOT_TOKEN",
			"SLACK_SIGNING_SECRET",
			"SLACK_APP_TOKEN",
			"SLACK_API_URL",
			"SLACK_ADMIN_USER_IDS",
			"PORT",
		])
			expect(names).toContain(name);
		for (const e of configTable()) expect(e.description.length).toBeGreaterThan(10);
	});

	it("is exactly what docs/configuration.md shows (regenerate the table when a variable changes)", () => {
		const doc = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
		expect(doc).toContain(configTableMarkdown());
	});

	it("is exactly what the README shows", () => {
		const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
		expect(readme).toContain(configTableMarkdown());
	});
});
