/**
 * The terminal's typed help commands on an open quiz (`again`, `hint`, `not sure`, ...); the struggle flow
 * itself runs on every platform in test/adapters/contract/struggle.test.ts.
 */

import { describe, expect, it } from "vitest";
import { parseHelpCommand } from "../../../src/adapters/terminal/input.ts";

describe("struggle in the playground", () => {
	it("parses the help commands and nothing else", () => {
		expect(parseHelpCommand("Hint")).toEqual({ command: "help", kind: "hint" });
		expect(parseHelpCommand("try again")).toEqual({ command: "help", kind: "again" });
		expect(parseHelpCommand("not sure.")).toEqual({ command: "help", kind: "not-sure" });
		expect(parseHelpCommand("show answer")).toEqual({ command: "help", kind: "show" });
		expect(parseHelpCommand("explain")).toEqual({ command: "help", kind: "explain" });
		expect(parseHelpCommand("I think it is 8")).toBeUndefined();
	});
});
