/**
 * The slow model of `bench:scale`: the OpenAI-compatible fake (testkit/fakes/openai.ts) in a
 * worker thread of its own (its event loop apart from the fake Discord's, as a model server is
 * another machine), answering every request after a delay with a short text and a two-option
 * quiz, forever, so every lesson keeps asking. Requests are counted, not recorded.
 */

import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { startFakeOpenAI } from "../../testkit/fakes/openai.ts";

/** The model fake as the bench sees it. */
export interface SlowModel {
	baseURL: string;
	/** Requests answered so far. */
	requests(): Promise<number>;
	close(): Promise<void>;
}

type FromModel = { type: "ready"; baseURL: string } | { type: "count"; n: number } | { type: "closed" };
type ToModel = { type: "count" } | { type: "close" };

/** Start the model worker: each request answered after `minMs`..`maxMs`. */
export async function startSlowModel(minMs: number, maxMs: number): Promise<SlowModel> {
	const self = JSON.stringify(import.meta.url);
	const worker = new Worker(`import("tsx/esm/api").then((api) => api.tsImport(${self}, ${self}));`, {
		eval: true,
		workerData: { minMs, maxMs },
	});
	const waiting: Array<(m: FromModel) => void> = [];
	worker.on("message", (m: FromModel) => waiting.shift()?.(m));
	worker.on("error", (error) => console.error("bench:scale: the model worker failed:", error));
	const next = () => new Promise<FromModel>((resolve) => waiting.push(resolve));
	const ready = await next();
	if (ready.type !== "ready") throw new Error("the model worker did not start");
	return {
		baseURL: ready.baseURL,
		async requests() {
			const reply = next();
			worker.postMessage({ type: "count" } satisfies ToModel);
			const m = await reply;
			return m.type === "count" ? m.n : Number.NaN;
		},
		async close() {
			const closed = next();
			worker.postMessage({ type: "close" } satisfies ToModel);
			await Promise.race([closed, new Promise((r) => setTimeout(r, 3_000))]);
			await worker.terminate();
		},
	};
}

if (!isMainThread && parentPort) {
	const port = parentPort;
	const { minMs, maxMs } = workerData as { minMs: number; maxMs: number };
	let served = 0;
	const fake = await startFakeOpenAI([], {
		record: false,
		delayMs: () => minMs + Math.random() * (maxMs - minMs),
		replyFor: (_body, n) => {
			served = n;
			return {
				text: `Step ${n}.`,
				toolCalls: [
					{
						id: `q${n}`,
						name: "quiz",
						arguments: {
							question: `Question ${n}: is ${n} even?`,
							options: ["yes", "no"],
							correctAnswer: n % 2 ? "no" : "yes",
						},
					},
				],
				usage: { promptTokens: 800, completionTokens: 40 },
				chunkSize: 64,
			};
		},
	});
	port.on("message", async (m: ToModel) => {
		if (m.type === "count") port.postMessage({ type: "count", n: served } satisfies FromModel);
		else {
			await fake.close();
			port.postMessage({ type: "closed" } satisfies FromModel);
			port.close();
		}
	});
	port.postMessage({ type: "ready", baseURL: fake.baseURL } satisfies FromModel);
}
