/**
 * Process-level safety: a stray rejection (a platform library's event with a
 * missing field) is logged and survived; an uncaught exception or a signal
 * closes everything gracefully (tutor, renderer, adapters), bounded in time.
 */

import type { Logger } from "../core/contracts/logger.ts";

/** Something to close on shutdown, named for the log. */
export interface Closable {
	name: string;
	close(): Promise<void>;
}

/** Closes registered resources in reverse order of registration, once. */
export class ShutdownRegistry {
	private readonly items: Closable[] = [];
	private closing: Promise<void> | undefined;

	constructor(
		private readonly logger: Logger,
		private readonly timeoutMs = 12_000,
	) {}

	/** Registers a resource (closed last-in, first-out: adapters before the tutor before the store). */
	add(item: Closable): void {
		this.items.push(item);
	}

	/** Closes everything; each close is bounded by the timeout and never throws. */
	close(): Promise<void> {
		this.closing ??= (async () => {
			for (const item of [...this.items].reverse()) {
				let timer: NodeJS.Timeout | undefined;
				const timeout = new Promise<"timeout">((resolve) => {
					timer = setTimeout(() => resolve("timeout"), this.timeoutMs);
				});
				try {
					const outcome = await Promise.race([item.close().then(() => "closed" as const), timeout]);
					if (outcome === "timeout") this.logger.warn({ resource: item.name }, "close timed out");
				} catch (error) {
					this.logger.error({ err: error, resource: item.name }, "close failed");
				} finally {
					clearTimeout(timer);
				}
			}
		})();
		return this.closing;
	}
}

/** Options of installProcessHandlers. */
export interface ProcessHandlerOptions {
	/**
	 * A first SIGINT/SIGTERM goes here instead of closing everything; return true when the
	 * caller stops on its own (the playground pauses the lesson, then returns normally).
	 */
	onSignal?: (signal: "SIGINT" | "SIGTERM") => boolean;
}

/** Installs the process handlers; `onExit(code)` runs after a graceful close. Returns an uninstaller. */
export function installProcessHandlers(
	logger: Logger,
	registry: ShutdownRegistry,
	onExit: (code: number) => void = (code) => process.exit(code),
	options: ProcessHandlerOptions = {},
): () => void {
	let stopping = false;
	const stop = (code: number, reason: string): void => {
		if (stopping) {
			// A second Ctrl+C: the user wants out now.
			onExit(code === 0 ? 130 : code);
			return;
		}
		stopping = true;
		if ((reason === "SIGINT" || reason === "SIGTERM") && options.onSignal?.(reason) === true) {
			logger.info({ reason }, "stopping on a signal");
			return;
		}
		logger.info({ reason }, "shutting down");
		void registry.close().finally(() => onExit(code));
	};
	const onRejection = (reason: unknown): void => {
		logger.error({ err: reason }, "unhandled promise rejection (kept running)");
	};
	const onException = (error: Error): void => {
		logger.error({ err: error }, "uncaught exception: shutting down");
		stop(1, "uncaught exception");
	};
	const onSigint = (): void => stop(0, "SIGINT");
	const onSigterm = (): void => stop(0, "SIGTERM");
	process.on("unhandledRejection", onRejection);
	process.on("uncaughtException", onException);
	process.on("SIGINT", onSigint);
	process.on("SIGTERM", onSigterm);
	return () => {
		process.off("unhandledRejection", onRejection);
		process.off("uncaughtException", onException);
		process.off("SIGINT", onSigint);
		process.off("SIGTERM", onSigterm);
	};
}
