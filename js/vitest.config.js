import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "happy-dom",
    include: ["test/**/*.test.js"],
    // A limit for a hung test, not a speed check: the property-style tests (list.test.js's
    // random changes) take a few seconds alone and several times that on a loaded 2-core machine.
    testTimeout: 60_000,
  },
});
