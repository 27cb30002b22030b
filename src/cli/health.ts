/**
 * `/healthz` and `/readyz` for load balancers and orchestrators. healthz: the process is
 * alive and its event loop answers (200 while it runs, also while it drains). readyz: it
 * can take work: the store answers, Chromium is ready (or known absent: pictures then
 * fall back to outlines, which still serves), every adapter is connected, and it is not
 * draining (503 from the first SIGTERM on, so a load balancer stops sending before the
 * receivers close). Served on Slack's HTTP port (Bolt's custom routes) or on a port of
 * its own (LEARNHARNESS_HEALTH_PORT).
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../core/contracts/logger.ts";

/** One readiness check: ok or not, and a word for the response. Must not throw (a throw counts as not ok). */
export interface ReadinessCheck {
	name: string;
	check(): Promise<{ ok: boolean; detail: string }>;
}

/** An HTTP route as Bolt's HTTPReceiver takes it (`customRoutes`). */
export interface HealthRoute {
	path: string;
	method: string;
	handler(req: IncomingMessage, res: ServerResponse): void;
}

/** The health endpoints of one process. */
export interface Health {
	/** Add a check (adapters register theirs once started). */
	add(check: ReadinessCheck): void;
	/** From now on /readyz answers 503 "draining". */
	drain(): void;
	/** Run every check now (what /readyz answers, without HTTP). */
	status(): Promise<ReadinessStatus>;
	/** The two routes, for a server that already listens (Slack's). */
	routes(): HealthRoute[];
	/** Listen on a port of its own; resolves with the bound port. */
	listen(port: number, host?: string): Promise<number>;
	/** Close the own server (if any). Never rejects. */
	close(): Promise<void>;
}

/** What /readyz reports. */
export interface ReadinessStatus {
	ok: boolean;
	status: "ready" | "not ready" | "draining";
	checks: Record<string, string>;
	/** The checks that failed (not in the HTTP body: its `checks` name them with their words). */
	failing: string[];
}

/** How long one readiness check may take before it counts as failed. */
export const READY_CHECK_MS = 2_000;

/** Health endpoints over `checks`. */
export function createHealth(logger: Logger, checks: ReadinessCheck[] = []): Health {
	let draining = false;
	let server: Server | undefined;

	const send = (res: ServerResponse, status: number, body: unknown) => {
		res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
		res.end(JSON.stringify(body));
	};

	async function run(check: ReadinessCheck): Promise<{ ok: boolean; detail: string }> {
		let timer: NodeJS.Timeout | undefined;
		const late = new Promise<{ ok: boolean; detail: string }>((resolve) => {
			timer = setTimeout(() => resolve({ ok: false, detail: "no answer in time" }), READY_CHECK_MS);
		});
		try {
			return await Promise.race([
				check.check().catch((error: unknown) => ({ ok: false, detail: (error as Error)?.message ?? "failed" })),
				late,
			]);
		} finally {
			clearTimeout(timer);
		}
	}

	async function status(): Promise<ReadinessStatus> {
		if (draining) return { ok: false, status: "draining", checks: {}, failing: [] };
		const results = await Promise.all(checks.map(async (c) => [c.name, await run(c)] as const));
		const ok = results.every(([, r]) => r.ok);
		return {
			ok,
			status: ok ? "ready" : "not ready",
			checks: Object.fromEntries(results.map(([name, r]) => [name, r.detail])),
			failing: results.filter(([, r]) => !r.ok).map(([name]) => name),
		};
	}

	async function ready(res: ServerResponse): Promise<void> {
		const { ok, failing: _failing, ...body } = await status();
		if (body.status === "draining") return send(res, 503, { status: "draining" });
		if (!ok) logger.debug(body, "readiness check failed");
		send(res, ok ? 200 : 503, body);
	}

	const healthz = (_req: IncomingMessage, res: ServerResponse) => send(res, 200, { status: "alive" });
	const readyz = (_req: IncomingMessage, res: ServerResponse) => {
		ready(res).catch(() => send(res, 503, { status: "not ready" }));
	};

	return {
		add: (check) => void checks.push(check),
		drain() {
			draining = true;
		},
		status,
		routes: () => [
			{ path: "/healthz", method: "GET", handler: healthz },
			{ path: "/readyz", method: "GET", handler: readyz },
		],
		listen(port, host) {
			server = createServer((req, res) => {
				const path = (req.url ?? "").split("?")[0];
				if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, { error: "method not allowed" });
				if (path === "/healthz") return healthz(req, res);
				if (path === "/readyz") return readyz(req, res);
				send(res, 404, { error: "not found" });
			});
			const s = server;
			return new Promise<number>((resolve, reject) => {
				s.once("error", reject);
				s.listen(port, host, () => {
					s.off("error", reject);
					resolve((s.address() as AddressInfo).port);
				});
			});
		},
		async close() {
			const s = server;
			server = undefined;
			if (!s) return;
			const closed = new Promise<void>((resolve) => s.close(() => resolve()));
			s.closeAllConnections();
			await closed;
		},
	};
}
