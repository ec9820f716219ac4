// sql.js ships no types: what src/stores/sqlite-file.ts takes of it is typed there.
declare module 'sql.js' {
  const initSqlJs: () => Promise<unknown>;
  export default initSqlJs;
}
