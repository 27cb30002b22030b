/**
 * A pre-read of a PDF's raw bytes, before PDF.js sees them: how much its Flate streams inflate to
 * (a compression bomb is refused unread: zlib stops at `maxOutputLength`, so no bomb is ever
 * unpacked in memory), and whether it carries scripts (`/JavaScript`, `/JS`) or is encrypted.
 * One linear pass with `indexOf`; streams that are not zlib data (images, encrypted ones) are
 * skipped, and the extraction's time limit bounds what PDF.js does with them.
 */

import { promisify } from "node:util";
import { constants, inflate } from "node:zlib";

const inflateAsync = promisify(inflate);

/** What the pre-read found. */
export interface StreamScan {
	/** Bytes the Flate streams inflate to, up to the cap (then `bomb`). */
	inflatedBytes: number;
	/** A stream (or all of them together) inflates past the cap. */
	bomb: boolean;
	/** The raw bytes name a script (`/JavaScript` or `/JS`), outside compressed object streams. */
	scripts: boolean;
	/** The trailer names an `/Encrypt` dictionary. */
	encrypted: boolean;
}

const STREAM = Buffer.from("stream");
const END = Buffer.from("endstream");

/** True when `bytes` at `at` is the start of a zlib stream (CMF 0x78, header checksum). */
function zlibHeader(bytes: Uint8Array, at: number): boolean {
	const cmf = bytes[at];
	const flg = bytes[at + 1];
	return cmf === 0x78 && flg !== undefined && (cmf * 256 + flg) % 31 === 0;
}

/** Inflated size of one zlib stream, at most `cap` (Infinity when over); undefined when it is not zlib data. */
async function inflatedSize(data: Uint8Array, cap: number): Promise<number | undefined> {
	try {
		// Z_SYNC_FLUSH: a truncated stream (PDFs often pad or cut them) yields what it has instead of throwing.
		// On the thread pool: a large stream never blocks the event loop.
		const out = await inflateAsync(data, { maxOutputLength: Math.max(1, cap), finishFlush: constants.Z_SYNC_FLUSH });
		return out.byteLength;
	} catch (error) {
		const code = (error as { code?: unknown }).code;
		return code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError ? Number.POSITIVE_INFINITY : undefined;
	}
}

/** Scan a PDF's bytes; `maxInflatedBytes` caps all Flate streams together. Never rejects. */
export async function scanPdfStreams(bytes: Uint8Array, maxInflatedBytes: number): Promise<StreamScan> {
	const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const out: StreamScan = {
		inflatedBytes: 0,
		bomb: false,
		scripts: buf.includes("/JavaScript") || buf.includes("/JS ") || buf.includes("/JS(") || buf.includes("/JS<"),
		encrypted: buf.includes("/Encrypt"),
	};
	let from = 0;
	while (from < buf.length) {
		const start = buf.indexOf(STREAM, from);
		if (start < 0) break;
		// "endstream" contains "stream": skip it as a start.
		if (start >= 3 && buf.toString("latin1", start - 3, start) === "end") {
			from = start + STREAM.length;
			continue;
		}
		let data = start + STREAM.length;
		if (buf[data] === 0x0d) data++;
		if (buf[data] === 0x0a) data++;
		const end = buf.indexOf(END, data);
		if (end < 0) break;
		from = end + END.length;
		if (!zlibHeader(buf, data)) continue;
		const size = await inflatedSize(buf.subarray(data, end), maxInflatedBytes - out.inflatedBytes + 1);
		if (size === undefined) continue;
		out.inflatedBytes += size;
		if (out.inflatedBytes > maxInflatedBytes) {
			out.bomb = true;
			break;
		}
	}
	return out;
}
