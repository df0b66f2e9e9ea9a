import { describe, expect, it } from "vitest";
import { parseCron, toOnCalendar } from "./cron.js";

const onCalendar = (expression: string) => toOnCalendar(parseCron(expression));

describe("parseCron", () => {
  it("accepts the five-field forms and normalises spacing", () => {
    expect(parseCron("  */15   9-17 * * 1-5 ").expression).toBe("*/15 9-17 * * 1-5");
    expect(() => parseCron("0 0 1,15 1-12/2 0,7")).not.toThrow();
  });

  it.each([
    ["0 6 * *", /has 4 fields, not 5/],
    ["@daily", /has 1 field, not 5/],
    ["60 * * * *", /minute field "60" holds 60, outside 0-59/],
    ["0 24 * * *", /hour field "24" holds 24, outside 0-23/],
    ["0 0 0 * *", /day of month field "0" holds 0, outside 1-31/],
    ["0 0 * 13 *", /month field "13" holds 13, outside 1-12/],
    ["0 0 * * 8", /day of week field "8" holds 8, outside 0-7/],
    ["0 0 * * mon", /"mon", which is not a number/],
    ["*/0 * * * *", /step "\/0"/],
    ["0 17-9 * * *", /runs backwards/],
  ])("refuses %j", (expression, message) => {
    expect(() => parseCron(expression)).toThrow(message);
    try {
      parseCron(expression);
    } catch (error) {
      expect(error).toMatchObject({ code: "USAGE" });
    }
  });
});

describe("toOnCalendar", () => {
  it.each([
    ["* * * * *", "*-*-* *:*:00"],
    ["0 6 * * *", "*-*-* 06:00:00"],
    ["*/15 * * * *", "*-*-* *:00/15:00"],
    ["30 9-17 * * 1-5", "Mon..Fri *-*-* 09..17:30:00"],
    ["0 0 1,15 * *", "*-*-01,15 00:00:00"],
    ["0 12 * */3 *", "*-01/3-* 12:00:00"],
    ["0 0 * * 0", "Sun *-*-* 00:00:00"],
    ["0 0 * * 7", "Sun *-*-* 00:00:00"],
    ["0 0 * * 5-7", "Fri..Sun *-*-* 00:00:00"],
    ["0 0 * * 0,6", "Sat,Sun *-*-* 00:00:00"],
    ["0 0 * * 1,3,5", "Mon,Wed,Fri *-*-* 00:00:00"],
    ["0 8-18/2 * * *", "*-*-* 08,10,12,14,16,18:00:00"],
  ])("%j → %j", (expression, expected) => {
    expect(onCalendar(expression)).toBe(expected);
  });

  it("refuses both day fields restricted, which cron and systemd read differently", () => {
    expect(() => onCalendar("0 6 1 * 1")).toThrow(/both the day of month and the day of week/);
  });
});
