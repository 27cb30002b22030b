import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkModel } from "../../src/cli/doctor-checks.ts";
import { prettyLine } from "../../src/cli/logger.ts";
import { installProcessHandlers, ShutdownRegistry } from "../../src/cli/process.ts";
import { type Config, parseConfig } from "../../src/config.ts";
import type { LogFields, Logger } from "../../src/core/contracts/logger.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../testkit/fakes/openai.ts";

function recordingLogger(): Logger & { lines: Array<{ level: string; fields: LogFields; message?: string }> } {
	const lines: Array<{ level: string; fields: LogFields; message?: string }> = [];
	const log =
		(level: string) =>
		(fields: LogFields, message?: string): void => {
			lines.push({ level, fields, ...(message !== undefined ? { message } : {}) });
		};
	const logger = {
		lines,
		debug: log("debug"),
		info: log("info"),
		warn: log("warn"),
		error: log("error"),
		child: () => logger,
	};
	return logger;
}

describe("ShutdownRegistry", () => {
	it("closes in reverse order, once, and survives a failing or hanging close", async () => {
		const logger = recordingLogger();
		const registry = new ShutdownRegistry(logger, 50);
		const order: string[] = [];
		registry.add({ name: "store", close: async () => void order.push("store") });
		registry.add({ name: "stuck", close: () => new Promise<void>(() => undefined) });
		registry.add({
			name: "broken",
			close: async () => {
				throw new Error("boom");
			},
		});
		registry.add({ name: "adapter", close: async () => void order.push("adapter") });
		await Promise.all([registry.close(), registry.close()]);
		expect(order).toEqual(["adapter", "store"]);
		expect(logger.lines.map((l) => `${l.level}:${l.fields.resource}`)).toEqual(["error:broken", "warn:stuck"]);
	});
});

describe("installProcessHandlers", () => {
	it("logs an unhandled rejection and keeps running; an uncaught exception closes and exits 1", async () => {
		const logger = recordingLogger();
		const registry = new ShutdownRegistry(logger);
		let closed = false;
		registry.add({
			name: "tutor",
			close: async () => {
				closed = true;
			},
		});
		const exits: number[] = [];
		const before = process.listeners("unhandledRejection").length;
		const uninstall = installProcessHandlers(logger, registry, (code) => exits.push(code));
		try {
			// Call the installed listeners directly: emitting on `process` would reach the test runner's own handlers.
			const onRejection = process.listeners("unhandledRejection").at(-1) as (reason: unknown) => void;
			onRejection(new Error("a platform payload without a field"));
			expect(exits).toEqual([]);
			expect(closed).toBe(false);
			expect(logger.lines[0]).toMatchObject({ level: "error", message: expect.stringMatching(/kept running/) });
			const onException = process.listeners("uncaughtException").at(-1) as (error: Error) => void;
			onException(new Error("bug"));
			await registry.close();
			await new Promise((resolve) => setImmediate(resolve));
			expect(closed).toBe(true);
			expect(exits).toEqual([1]);
		} finally {
			uninstall();
		}
		expect(process.listeners("unhandledRejection").length).toBe(before);
	});
});

describe("prettyLine", () => {
	it("turns a pino JSON line into a short readable line", () => {
		const line = prettyLine(`${JSON.stringify({ level: 40, time: 0, msg: "slow", adapter: "slack", pid: 1 })}\n`);
		expect(line).toMatch(/WARN/);
		expect(line).toMatch(/slow/);
		expect(line).toMatch(/adapter=slack/);
		expect(line).not.toMatch(/pid=/);
		expect(prettyLine("not json")).toBe("not json");
	});
});

describe("doctor's model check against a fake OpenAI-compatible server", () => {
	let fake: FakeOpenAI;
	beforeAll(async () => {
		fake = await startFakeOpenAI();
	});
	afterAll(() => fake.close());

	const configFor = (env: Record<string, string>): Config => {
		const r = parseConfig(env);
		if (!r.ok) throw new Error(JSON.stringify(r.problems));
		return r.config;
	};

	it("makes one tiny request and reports the answer", async () => {
		fake.reply({ text: "OK" });
		const result = await checkModel(
			configFor({ OPENAI_BASE_URL: fake.baseURL, LEARNHARNESS_MODEL: "llama3.1:8b" }),
			5_000,
		);
		expect(result).toMatchObject({ status: "ok", detail: expect.stringMatching(/llama3\.1:8b at .* answered/) });
		expect(fake.requests.length).toBe(1);
	});

	it("fails with the fix when the server refuses", async () => {
		fake.reply({ status: 401 });
		const result = await checkModel(
			configFor({ OPENAI_BASE_URL: fake.baseURL, LEARNHARNESS_MODEL: "m", OPENAI_API_KEY: "k" }),
			5_000,
		);
		expect(result).toMatchObject({ status: "fail", detail: expect.stringMatching(/Fix: check OPENAI_API_KEY/) });
	});

	it("fails within the time limit, naming the server, when nothing listens there", async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise<void>((resolve) => closed.close(() => resolve()));
		const result = await checkModel(
			configFor({ OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, LEARNHARNESS_MODEL: "llama3.1:8b" }),
			5_000,
		);
		expect(result.status).toBe("fail");
		expect(result.detail).toMatch(new RegExp(`llama3\\.1:8b at http://127\\.0\\.0\\.1:${port}/v1: .*ECONNREFUSED`));
		expect(result.detail).toMatch(/Fix: check OPENAI_API_KEY, OPENAI_BASE_URL/);
	});

	it("makes no request for the demo", async () => {
		const before = fake.requests.length;
		expect(await checkModel(configFor({}), 5_000)).toMatchObject({
			status: "ok",
			detail: expect.stringMatching(/^demo/),
		});
		expect(fake.requests.length).toBe(before);
	});
});
