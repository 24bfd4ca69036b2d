/* global process, console */
// Plain JavaScript on purpose: older Node versions cannot even parse our TypeScript files, so
// this check runs first and says what is wrong in one sentence instead of a syntax error.
var major = Number(process.versions.node.split('.')[0]);
if (major !== 24) {
  console.error(
    '\n  Legend Cloud needs Node 24 (this is Node ' +
      process.versions.node +
      '): install it (nvm install 24, see .nvmrc) and run npm start again.\n',
  );
  process.exit(1);
}
