// Flat config: typescript-eslint's recommended rules. Formatting is prettier's job (`prettier --check`),
// and the recommended sets contain no formatting rules, so the two do not fight.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "bin/**",
      "emulator/bin/**",
      "emulator/dist/**",
      "coverage/**",
      ".pulumi-test/**",
      "bench/results/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain JavaScript here is Node CommonJS (launchers, benchmark helpers): Node's globals, and
    // require() is how such files load modules. TypeScript files get their globals from @types/node.
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: Object.fromEntries(
        [
          "require",
          "module",
          "exports",
          "__dirname",
          "__filename",
          "process",
          "console",
          "Buffer",
          "setTimeout",
          "clearTimeout",
        ].map((name) => [name, "readonly"]),
      ),
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    rules: {
      // `_`-prefixed names mark parameters an interface requires but an implementation does not use.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
);
