// Entry of the smoke from CommonJS: require("orgagent") through the compiled smoke.cjs.
const { runSmoke } = require("./smoke.cjs");

runSmoke(JSON.parse(process.argv[2])).then(
  (summary) => console.log(JSON.stringify(summary)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
