/**
 * The individual `doctor` checks. Each is bounded in time, never throws, and
 * says what is wrong in words an admin can act on (with the fix).
 */

import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { generateText } from "ai";
import { lastDriverError, openKeyv, parseModelSpec, reason } from "../agent/index.ts";
import { type Config, redactUrl } from "../config.ts";
import type { DerivedPlanStatuses } from "../core/contracts/plan.ts";
import { parsePlanMermaid } from "../core/plan-mermaid.ts";
import { createPlanRenderer } from "../render/index.ts";
import { modelOf, modelsInUse, whereOf } from "./services.ts";
import { prepareStoreFolder } from "./store-folder.ts";

/** One row of the doctor's table. */
export interface CheckResult {
	name: string;
	status: "ok" | "warn" | "fail" | "skip";
	detail: string;
}

/** Debian's Chromium, where the renderer looks when nothing is configured. */
export const DEFAULT_CHROMIUM = "/usr/bin/chromium";
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An error as one short line (library errors can span many lines: keep the table readable). */
const message = (error: unknown): string => {
	// fetch says only "fetch failed": the reason (ECONNREFUSED, a DNS error) is in its cause.
	const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
	const raw = error instanceof Error ? error.message : String(error);
	const text = (cause && !raw.includes(cause) ? `${raw} (${cause})` : raw).replace(/\s+/g, " ").trim();
	return text.length > 300 ? `${text.slice(0, 299)}…` : text;
};

/** Rejects after `ms` with a message naming what timed out. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what} did not answer within ${Math.round(ms / 1000)} s`)), ms);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

/** The Chromium binary exists, is executable and reports a version. */
export async function checkChromium(path: string | undefined, timeoutMs: number): Promise<CheckResult> {
	const binary = path ?? DEFAULT_CHROMIUM;
	const fix =
		"Fix: run `npm run setup` (installs Debian's chromium), or set LEARNHARNESS_CHROMIUM_PATH / PUPPETEER_EXECUTABLE_PATH to a Chromium binary.";
	try {
		await access(binary, constants.X_OK);
	} catch {
		return { name: "chromium", status: "fail", detail: `No executable Chromium at ${binary}. ${fix}` };
	}
	const version = await new Promise<string | undefined>((resolve) => {
		execFile(binary, ["--version"], { timeout: timeoutMs }, (error, stdout) =>
			resolve(error ? undefined : (stdout.trim().split("\n")[0] ?? "")),
		);
	});
	if (version === undefined)
		return { name: "chromium", status: "warn", detail: `${binary} did not report a version; the test render decides` };
	if (!/chrom/i.test(version))
		return {
			name: "chromium",
			status: "warn",
			detail: `${binary} says ${JSON.stringify(version.slice(0, 60))}, which does not look like Chromium. ${fix}`,
		};
	return { name: "chromium", status: "ok", detail: `${binary}: ${version}` };
}

/** A real plan picture through the project's renderer. */
export async function checkRender(path: string | undefined, timeoutMs: number): Promise<CheckResult> {
	const parsed = parsePlanMermaid("graph TD\n  a[Sorted input] --> b[Check the middle]\n  b --> c[Count the steps]");
	if (!parsed.ok) return { name: "plan picture", status: "fail", detail: `internal: ${parsed.error}` };
	const statuses: DerivedPlanStatuses = { current: "b", visited: new Set(["a"]) };
	// A cold start (launch + first page) is slow on a busy machine: never give it less than the renderer's defaults.
	const renderer = createPlanRenderer({
		...(path ? { executablePath: path } : {}),
		timeoutMs: Math.max(timeoutMs, 10_000),
		launchTimeoutMs: Math.max(timeoutMs, 30_000),
		cacheSize: 0,
	});
	const started = performance.now();
	try {
		const picture = await withTimeout(
			renderer.renderPlan(parsed.tree, statuses),
			Math.max(timeoutMs, 10_000) + Math.max(timeoutMs, 30_000),
			"the plan renderer",
		);
		const ms = Math.round(performance.now() - started);
		if (!picture.png)
			return { name: "plan picture", status: "fail", detail: message(picture.error ?? "no picture was made") };
		if (!picture.png.subarray(0, 8).equals(PNG_SIGNATURE))
			return { name: "plan picture", status: "fail", detail: "the renderer returned something that is not a PNG" };
		return { name: "plan picture", status: "ok", detail: `test render ${picture.png.length} bytes in ${ms} ms (cold)` };
	} catch (error) {
		return { name: "plan picture", status: "fail", detail: message(error) };
	} finally {
		await withTimeout(renderer.close(), 10_000, "closing Chromium").catch(() => undefined);
	}
}

/** The store accepts a write, reads it back, and deletes it; always within the time limit. */
export async function checkStore(url: string, timeoutMs: number): Promise<CheckResult> {
	const name = "store";
	const shown = redactUrl(url);
	const fix = url.startsWith("sqlite://")
		? "Fix: point LEARNHARNESS_STORE_URL at a file in a writable folder, e.g. sqlite://./data/learnharness.sqlite."
		: "Fix: check LEARNHARNESS_STORE_URL (host, port, user and password) and that the server is running and reachable from here.";
	try {
		// Made one level at a time, so a folder that cannot exist fails here instead of hanging the store's mkdir.
		await withTimeout(prepareStoreFolder(url), timeoutMs, "creating the store's folder");
	} catch (error) {
		return { name, status: "fail", detail: `${shown}: ${message(error)}. ${fix}` };
	}
	let keyv: ReturnType<typeof openKeyv>;
	try {
		keyv = openKeyv(url, "doctor");
	} catch (error) {
		return { name, status: "fail", detail: `${shown}: ${message(error)}. ${fix}` };
	}
	// Keyv reports connection trouble as 'error' events (and may then answer as if empty); keep the first.
	let storeError: unknown;
	keyv.on("error", (error: unknown) => {
		storeError ??= error;
	});
	const key = `doctor-${process.pid}-${Date.now()}`;
	const started = performance.now();
	try {
		await withTimeout(
			(async () => {
				await keyv.set(key, { ok: true }, 60_000);
				const back = (await keyv.get(key)) as { ok?: boolean } | undefined;
				if (storeError !== undefined) throw storeError;
				if (back?.ok !== true) throw new Error("a value written could not be read back");
				await keyv.delete(key);
				if ((await keyv.get(key)) !== undefined) throw new Error("a deleted value is still there");
			})(),
			timeoutMs,
			"the store",
		);
		const ms = Math.round(performance.now() - started);
		return { name, status: "ok", detail: `${shown}: write, read, delete in ${ms} ms` };
	} catch (error) {
		// The driver's own error (ECONNREFUSED, WRONGPASS) says more than keyv's "not connected".
		const cause = lastDriverError(keyv) ?? storeError ?? error;
		return { name, status: "fail", detail: `${shown}: ${message(reason(cause))}. ${fix}` };
	} finally {
		await withTimeout(keyv.disconnect(), 5_000, "closing the store").catch(() => undefined);
	}
}

/** What to check when a provider refuses, per provider prefix. */
const MODEL_FIX: Record<string, string> = {
	openai: "check OPENAI_API_KEY and LEARNHARNESS_MODEL (the id must exist at OpenAI)",
	compatible: "check OPENAI_API_KEY, OPENAI_BASE_URL and LEARNHARNESS_MODEL (the id must exist on that server)",
	anthropic: "check ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and the model id (e.g. anthropic:claude-sonnet-4-5)",
	google:
		"check GOOGLE_GENERATIVE_AI_API_KEY, GOOGLE_GENERATIVE_AI_BASE_URL and the model id (e.g. google:gemini-2.5-flash)",
};

/** One tiny request per distinct model in use (the prober's and the teacher's), named by the jobs it serves when they differ. */
export async function checkModels(config: Config, timeoutMs: number): Promise<CheckResult[]> {
	const inUse = modelsInUse(config);
	if (inUse.length === 1) return [await checkModel(config, timeoutMs)];
	return Promise.all(
		inUse.map(async (m) => ({
			...(await checkModel(config, timeoutMs, m.setting)),
			name: `model (${m.jobs.join(", ")})`,
		})),
	);
}

/** A tiny request to one model setting (default LEARNHARNESS_MODEL; skipped for the demo, which makes no requests). */
export async function checkModel(
	config: Config,
	timeoutMs: number,
	setting: string = config.model.id,
): Promise<CheckResult> {
	const name = "model";
	if (setting === "demo")
		return {
			name,
			status: "ok",
			detail: "demo: the built-in scripted lesson (no request needed). Set OPENAI_API_KEY for a real model.",
		};
	const spec = parseModelSpec(setting, config.model.baseUrl !== undefined);
	const where = whereOf(config, setting);
	const fix = MODEL_FIX[spec.ok && !spec.demo ? spec.provider : "openai"];
	const started = performance.now();
	try {
		const result = await generateText({
			model: modelOf(config, setting),
			prompt: "Reply with the single word OK.",
			maxOutputTokens: 16,
			maxRetries: 0,
			abortSignal: AbortSignal.timeout(timeoutMs),
		});
		const ms = Math.round(performance.now() - started);
		return {
			name,
			status: "ok",
			detail: `${setting} at ${where} answered in ${ms} ms (${JSON.stringify(result.text.slice(0, 20))})`,
		};
	} catch (error) {
		return {
			name,
			status: "fail",
			detail: `${setting} at ${where}: ${message(error)}. Fix: ${fix}.`,
		};
	}
}

/** The Discord bot token: GET /users/@me. */
export async function checkDiscord(discord: Config["discord"], timeoutMs: number): Promise<CheckResult> {
	const name = "discord";
	if (!discord) return { name, status: "skip", detail: "DISCORD_TOKEN is not set" };
	// From where the run of slashes starts: "\/+$" alone rescans the run from every slash (quadratic).
	const base = (discord.apiUrl ?? "https://discord.com/api").replace(/(?<!\/)\/+$/, "");
	try {
		const response = await fetch(`${base}/v10/users/@me`, {
			headers: { authorization: `Bot ${discord.token}` },
			signal: AbortSignal.timeout(timeoutMs),
		});
		if (response.status === 401)
			return {
				name,
				status: "fail",
				detail: `Discord rejected the token (401). Fix: reset the token (Developer Portal → Bot) and update DISCORD_TOKEN.`,
			};
		if (!response.ok) return { name, status: "fail", detail: `GET ${base}/v10/users/@me answered ${response.status}` };
		const me = (await response.json()) as { username?: string; id?: string; bot?: boolean };
		return {
			name,
			status: "ok",
			detail: `logged in as ${me.username ?? "?"} (${me.id ?? "?"})${me.bot === false ? " (not a bot account!)" : ""}`,
		};
	} catch (error) {
		return { name, status: "fail", detail: `${base}: ${message(error)}. Fix: check the network and DISCORD_API_URL.` };
	}
}

/** The Slack bot token: auth.test. */
export async function checkSlack(slack: Config["slack"], timeoutMs: number): Promise<CheckResult> {
	const name = "slack";
	if (!slack) return { name, status: "skip", detail: "SLACK_BOT_TOKEN is not set" };
	const base = (slack.apiUrl ?? "https://slack.com/api/").replace(/(?<!\/)\/*$/, "/"); // as for Discord
	try {
		const response = await fetch(`${base}auth.test`, {
			method: "POST",
			headers: { authorization: `Bearer ${slack.botToken}`, "content-type": "application/x-www-form-urlencoded" },
			body: "",
			signal: AbortSignal.timeout(timeoutMs),
		});
		if (!response.ok) return { name, status: "fail", detail: `POST ${base}auth.test answered ${response.status}` };
		const body = (await response.json()) as { ok?: boolean; error?: string; team?: string; user?: string };
		if (!body.ok)
			return {
				name,
				status: "fail",
				detail: `Slack said ${body.error ?? "not ok"}. Fix: copy the Bot User OAuth Token (xoxb-…) again into SLACK_BOT_TOKEN and reinstall the app if scopes changed.`,
			};
		const mode = slack.appToken ? "Socket Mode" : `HTTP on port ${slack.port}`;
		return { name, status: "ok", detail: `bot ${body.user ?? "?"} in ${body.team ?? "?"}; ${mode}` };
	} catch (error) {
		return { name, status: "fail", detail: `${base}: ${message(error)}. Fix: check the network and SLACK_API_URL.` };
	}
}
