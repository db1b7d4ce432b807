"""Command-line programs tacit's word lists lack, read only where a rule says to run one unquoted: "never run
sops decrypt", "don't run drizzle-kit push", "never run kamal setup". A closed list of real CLI names that are
no English word ("never run bulk delete", "never run factory reset" name no program), plus names shaped only
like a CLI (``…ctl``, ``…-cli``). Pure.
"""

from __future__ import annotations

_CLI_NAMES = frozenset((
    # secrets and infrastructure
    "sops", "doppler", "infisical", "ansible-vault", "terragrunt", "helmfile", "argocd", "kamal", "sst", "localstack",
    "k3d", "k9s", "ngrok", "nixos-rebuild", "darwin-rebuild", "home-manager", "chezmoi",
    # databases and migrations
    "drizzle-kit", "flyway", "liquibase", "knex", "sequelize", "typeorm", "mikro-orm", "dbmate", "sqitch", "hasura",
    "dbt", "sqlx", "turso", "pscale", "mongodump", "mongorestore",
    # builds, apps, releases
    "bazel", "bazelisk", "convex", "eas", "pm2", "nodemon", "fastlane", "xcrun", "drush", "glab", "release-it",
    "lefthook", "pre-commit", "corepack", "pyenv", "asdf",
))
_CLI_SHAPES = ("ctl", "-cli")
# what such a program is said to run in prose, not a subcommand: "never run kamal deployments", "eas builds"
_PROSE_PLURALS = frozenset((
    "builds", "deploys", "deployments", "migrations", "releases", "seeds", "seeders", "tests", "models", "queries",
    "jobs", "updates", "upgrades", "installs", "commands", "scripts", "runs", "changes", "operations", "mutations",
    "hooks", "checks", "tasks", "steps", "workflows", "pipelines", "services", "workers", "processes", "servers",
))


def named_cli(words: list[str]) -> bool:
    """Whether ``words`` start with one of those programs as typed, in lower case ("sops decrypt", "neonctl"), not
    its product named in prose ("never run Convex locally", "never run EAS builds")."""
    name = words[0]
    if not name.islower() or len(words) > 1 and words[1].lower() in _PROSE_PLURALS:
        return False
    return name in _CLI_NAMES or name.endswith(_CLI_SHAPES) and len(name) > 5 and name.replace("-", "").isalnum()
