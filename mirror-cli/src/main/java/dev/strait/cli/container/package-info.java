/**
 * The container image's launcher: {@code docker/entrypoint.sh} runs {@link dev.strait.cli.container.ContainerMain},
 * which reads a role and the {@code STRAIT_*} environment variables ({@link dev.strait.cli.container.EnvConfig}),
 * plans the properties files and flags ({@link dev.strait.cli.container.ContainerLaunch}), writes them and the
 * healthcheck's endpoint to the run directory, then runs the {@link dev.strait.cli.Strait} command in the same JVM.
 * It depends on the command line package; nothing in the command line depends on it.
 */
package dev.strait.cli.container;
