/**
 * The admins' web dashboard (docs/dashboard.md): a small server-rendered site
 * inside the bot's process, off unless LEARNHARNESS_DASHBOARD_SECRET is set.
 * `/lesson dashboard` asks it for a one-time sign-in link (`issue`, the
 * DashboardSignIn contract the lesson controller holds); the pages read the
 * learning service's lesson digests and, for a transcript, the session record.
 * On core and agent's public surface only; no platform SDK.
 */

import type { Server } from "node:http";
import type { Learning, SessionRecord, StateStore } from "../agent/index.ts";
import type { DashboardLink, DashboardLinkRequest, DashboardSignIn } from "../core/contracts/dashboard.ts";
import type { Logger } from "../core/contracts/logger.ts";
import { createDashboardServer, listen } from "./server.ts";
import { LINK_TTL_MS, SignIn } from "./sign-in.ts";

export { CONTENT_SECURITY_POLICY } from "./server.ts";
export { LINK_TTL_MS, SESSION_TTL_MS } from "./sign-in.ts";

/** What the dashboard needs. */
export interface DashboardOptions {
	/** The links' HMAC key (LEARNHARNESS_DASHBOARD_SECRET). */
	secret: string;
	/** Where to listen (LEARNHARNESS_DASHBOARD_HOST, _PORT; 0: any free port). */
	host: string;
	port: number;
	/** How people reach it (LEARNHARNESS_PUBLIC_URL); default `http://<host>:<bound port>`. */
	publicUrl?: string;
	/** Used links and sessions (its own namespace, `learnharness:dashboard`, on the sessions' backend). */
	state: StateStore;
	learning: Pick<Learning, "lessons" | "lessonBuckets">;
	/** The session records (a transcript page reads one). */
	records: { get(sessionId: string): Promise<SessionRecord | undefined> };
	logger: Logger;
	now?: () => Date;
}

/** The running dashboard. */
export interface Dashboard extends DashboardSignIn {
	/** Start listening; the URL links start with. */
	listen(): Promise<string>;
	/** The URL links start with (after listen). */
	url(): string;
	/** Stop listening. Never rejects. */
	close(): Promise<void>;
}

/** A URL without the slashes it ends with (a loop: an anchored `/+$` regex backtracks on long runs of slashes). */
function withoutTrailingSlashes(url: string | undefined): string | undefined {
	if (url === undefined) return undefined;
	let end = url.length;
	while (end > 0 && url[end - 1] === "/") end--;
	return url.slice(0, end);
}

/** Create the dashboard (not yet listening). */
export function createDashboard(options: DashboardOptions): Dashboard {
	const now = options.now ?? (() => new Date());
	const signIn = new SignIn(options.secret, options.state, now);
	let base = withoutTrailingSlashes(options.publicUrl);
	const secure = base?.startsWith("https:") === true;
	const server: Server = createDashboardServer({
		signIn,
		learning: options.learning,
		records: options.records,
		logger: options.logger,
		now,
		origin: () => (base ? new URL(base).origin : undefined),
		secure,
	});
	return {
		async listen() {
			const address = await listen(server, options.host, options.port);
			const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
			base ??= `http://${host}:${address.port}`;
			options.logger.info({ url: base }, "dashboard listening");
			return base;
		},
		url: () => base ?? "",
		async issue(request: DashboardLinkRequest): Promise<DashboardLink> {
			const { token, expires } = signIn.token(request);
			// A process that does not serve the pages (a Discord shard) links to the configured address.
			const to = base ?? `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${options.port}`;
			return {
				url: `${to}/signin?t=${token}`,
				expiresAt: new Date(expires).toISOString(),
				minutes: Math.round(LINK_TTL_MS / 60_000),
			};
		},
		close: () =>
			new Promise<void>((done) => {
				server.closeAllConnections?.();
				server.close(() => done());
			}),
	};
}
