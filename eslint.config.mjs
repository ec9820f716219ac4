// The linter: typescript-eslint's recommended rules, no import cycles, and the layers of src/
// (a layer imports only from the layers below it; a type-only import may look up, for a type the
// upper layer owns). `npm run lint`; .ci/run runs it.
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** src/'s layers, bottom up: each folder may import only from its own layer and those before it. */
const LAYERS = [
  ['schema'],
  ['events', 'payloads', 'registry', 'tools'],
  ['providers'],
  ['wire'],
  ['protocols'],
  ['stores'],
  ['clis'],
  ['decode'],
  ['history'],
  ['spend'],
  ['runner'],
  ['sessions', 'http'],
  ['projections', 'scale'],
  ['cli', 'nest', 'index.ts'],
];

const layerRules = LAYERS.slice(0, -1).map((layer, index) => {
  const above = LAYERS.slice(index + 1).flat();
  return {
    files: layer.map((folder) => `src/${folder}/**/*.ts`),
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: above
                .map((folder) => `**/${folder.replace(/\.ts$/, '')}${folder.endsWith('.ts') ? '' : '/**'}`)
                .concat(above.filter((f) => !f.endsWith('.ts')).map((folder) => `**/${folder}`)),
              allowTypeImports: true,
              message: `src/${layer.join(', src/')} is below that layer: import from the layers under it (or only a type).`,
            },
          ],
        },
      ],
    },
  };
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'e2e/node_modules/**', 'coverage/**', 'docs/api/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  ...layerRules,
  {
    // Tests load modules by path at run time (require, jest's module registry) and poke at loose JSON.
    files: ['test/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
