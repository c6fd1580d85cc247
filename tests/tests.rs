//! The one integration-test binary: everything through the `trawl` executable and the
//! real parts it uses (the loopback test web, an S3 server, megatron-core in a venv).

mod support;

mod captions;
mod cli;
mod consent;
mod crash;
mod dedup;
mod deploy;
mod golden;
mod megatron;
mod parquet;
mod props;
mod render;
mod report;
mod robust;
mod s3;
mod shards;
mod workers;
