// `git-credential-autofill`: git's credential helper. `git config --global credential.helper autofill`
// makes git run `git credential-autofill get|store|erase`, which is `autofill git-credential …`: the
// same small client as `autofill` (Sources/autofill), so a `get` goes to a warm agent in one
// round trip, and everything else runs in `autofill-cli` beside this executable. git's PATH (its exec
// folder in front) does not matter to the agent.
import AutofillWire

ClientLauncher.run(["git-credential"] + Array(CommandLine.arguments.dropFirst()))
