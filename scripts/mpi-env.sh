# Sourced by the scripts that launch MPI programs on a single test machine: Open MPI refuses to
# run as root and to start more ranks than cores unless told; these say so for this shell only.
# (MPICH's launcher needs neither.) On a cluster, set nothing of this: the batch system decides.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
