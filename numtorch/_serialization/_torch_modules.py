"""The public module names of torch 2.13 and torchvision 0.28 (data for the pickle name map).

Pickles of whole models name classes and functions by module path. numtorch writes torch's
path for each of its own globals, and only a module that exists in torch may be named there
(numtorch splits some of torch's modules into packages, e.g. ``numtorch.nn.functional.conv``,
which torch does not have). The list is generated from the installed torch and torchvision
files (nothing is imported): ``python -m numtorch._serialization._torch_modules`` prints a
fresh ``_NAMES`` block. Private modules (a component starting with ``_``) are left out:
numtorch's private modules never correspond to torch's.
"""

import functools


@functools.lru_cache(maxsize=None)
def torch_modules():
    """The set of torch's (and torchvision's) public module names."""
    return frozenset(_NAMES.split())


def _generate():
    """The public module names of the torch and torchvision installed here."""
    import importlib.util
    import os

    names = set()
    for pkg in ("torch", "torchvision"):  # located, not imported
        root = os.path.dirname(os.path.dirname(importlib.util.find_spec(pkg).origin))
        for directory, _, files in os.walk(os.path.join(root, pkg)):
            parts = os.path.relpath(directory, root).split(os.sep)
            if any(p.startswith("_") for p in parts[1:]):
                continue
            for f in files:
                stem, ext = os.path.splitext(f)
                if ext != ".py":
                    continue
                if stem == "__init__":
                    names.add(".".join(parts))
                elif not stem.startswith("_"):
                    names.add(".".join(parts + [stem]))
    return sorted(names)


def _main():
    import textwrap

    quote = '"' * 3
    print(f"_NAMES = {quote}")
    print(textwrap.fill(" ".join(_generate()), 99, break_long_words=False,
                        break_on_hyphens=False))
    print(quote)


_NAMES = """
torch torch.accelerator torch.accelerator.graphs torch.accelerator.memory torch.amp
torch.amp.autocast_mode torch.amp.grad_scaler torch.ao torch.ao.nn torch.ao.nn.intrinsic
torch.ao.nn.intrinsic.modules torch.ao.nn.intrinsic.modules.fused torch.ao.nn.intrinsic.qat
torch.ao.nn.intrinsic.qat.modules torch.ao.nn.intrinsic.qat.modules.conv_fused
torch.ao.nn.intrinsic.qat.modules.linear_fused torch.ao.nn.intrinsic.qat.modules.linear_relu
torch.ao.nn.intrinsic.quantized torch.ao.nn.intrinsic.quantized.dynamic
torch.ao.nn.intrinsic.quantized.dynamic.modules
torch.ao.nn.intrinsic.quantized.dynamic.modules.linear_relu torch.ao.nn.intrinsic.quantized.modules
torch.ao.nn.intrinsic.quantized.modules.bn_relu torch.ao.nn.intrinsic.quantized.modules.conv_add
torch.ao.nn.intrinsic.quantized.modules.conv_relu
torch.ao.nn.intrinsic.quantized.modules.linear_relu torch.ao.nn.qat torch.ao.nn.qat.dynamic
torch.ao.nn.qat.dynamic.modules torch.ao.nn.qat.dynamic.modules.linear torch.ao.nn.qat.modules
torch.ao.nn.qat.modules.conv torch.ao.nn.qat.modules.embedding_ops torch.ao.nn.qat.modules.linear
torch.ao.nn.quantizable torch.ao.nn.quantizable.modules torch.ao.nn.quantizable.modules.activation
torch.ao.nn.quantizable.modules.rnn torch.ao.nn.quantized torch.ao.nn.quantized.dynamic
torch.ao.nn.quantized.dynamic.modules torch.ao.nn.quantized.dynamic.modules.conv
torch.ao.nn.quantized.dynamic.modules.linear torch.ao.nn.quantized.dynamic.modules.rnn
torch.ao.nn.quantized.functional torch.ao.nn.quantized.modules
torch.ao.nn.quantized.modules.activation torch.ao.nn.quantized.modules.batchnorm
torch.ao.nn.quantized.modules.conv torch.ao.nn.quantized.modules.dropout
torch.ao.nn.quantized.modules.embedding_ops torch.ao.nn.quantized.modules.functional_modules
torch.ao.nn.quantized.modules.linear torch.ao.nn.quantized.modules.normalization
torch.ao.nn.quantized.modules.rnn torch.ao.nn.quantized.modules.utils
torch.ao.nn.quantized.reference torch.ao.nn.quantized.reference.modules
torch.ao.nn.quantized.reference.modules.conv torch.ao.nn.quantized.reference.modules.linear
torch.ao.nn.quantized.reference.modules.rnn torch.ao.nn.quantized.reference.modules.sparse
torch.ao.nn.quantized.reference.modules.utils torch.ao.nn.sparse torch.ao.nn.sparse.quantized
torch.ao.nn.sparse.quantized.dynamic torch.ao.nn.sparse.quantized.dynamic.linear
torch.ao.nn.sparse.quantized.linear torch.ao.nn.sparse.quantized.utils torch.ao.ns torch.ao.ns.fx
torch.ao.ns.fx.graph_matcher torch.ao.ns.fx.graph_passes torch.ao.ns.fx.mappings
torch.ao.ns.fx.n_shadows_utils torch.ao.ns.fx.ns_types torch.ao.ns.fx.pattern_utils
torch.ao.ns.fx.qconfig_multi_mapping torch.ao.ns.fx.utils torch.ao.ns.fx.weight_utils
torch.ao.pruning torch.ao.pruning.scheduler torch.ao.pruning.scheduler.base_scheduler
torch.ao.pruning.scheduler.cubic_scheduler torch.ao.pruning.scheduler.lambda_scheduler
torch.ao.pruning.sparsifier torch.ao.pruning.sparsifier.base_sparsifier
torch.ao.pruning.sparsifier.nearly_diagonal_sparsifier torch.ao.pruning.sparsifier.utils
torch.ao.pruning.sparsifier.weight_norm_sparsifier torch.ao.quantization
torch.ao.quantization.backend_config torch.ao.quantization.backend_config.backend_config
torch.ao.quantization.backend_config.executorch torch.ao.quantization.backend_config.fbgemm
torch.ao.quantization.backend_config.native torch.ao.quantization.backend_config.onednn
torch.ao.quantization.backend_config.qnnpack torch.ao.quantization.backend_config.tensorrt
torch.ao.quantization.backend_config.utils torch.ao.quantization.backend_config.x86
torch.ao.quantization.fake_quantize torch.ao.quantization.fuse_modules
torch.ao.quantization.fuser_method_mappings torch.ao.quantization.fx
torch.ao.quantization.fx.convert torch.ao.quantization.fx.custom_config
torch.ao.quantization.fx.fuse torch.ao.quantization.fx.fuse_handler
torch.ao.quantization.fx.graph_module torch.ao.quantization.fx.lower_to_fbgemm
torch.ao.quantization.fx.lower_to_qnnpack torch.ao.quantization.fx.lstm_utils
torch.ao.quantization.fx.match_utils torch.ao.quantization.fx.pattern_utils
torch.ao.quantization.fx.prepare torch.ao.quantization.fx.qconfig_mapping_utils
torch.ao.quantization.fx.quantize_handler torch.ao.quantization.fx.tracer
torch.ao.quantization.fx.utils torch.ao.quantization.observer torch.ao.quantization.qconfig
torch.ao.quantization.qconfig_mapping torch.ao.quantization.quant_type
torch.ao.quantization.quantization_mappings torch.ao.quantization.quantize
torch.ao.quantization.quantize_fx torch.ao.quantization.quantize_jit torch.ao.quantization.stubs
torch.ao.quantization.utils torch.autograd torch.autograd.anomaly_mode torch.autograd.forward_ad
torch.autograd.function torch.autograd.functional torch.autograd.grad_mode torch.autograd.gradcheck
torch.autograd.graph torch.autograd.profiler torch.autograd.profiler_legacy
torch.autograd.profiler_util torch.autograd.variable torch.backends torch.backends.cpu
torch.backends.cuda torch.backends.cudnn torch.backends.cudnn.rnn torch.backends.cusparselt
torch.backends.kleidiai torch.backends.mha torch.backends.miopen torch.backends.mkl
torch.backends.mkldnn torch.backends.mps torch.backends.nnpack torch.backends.openmp
torch.backends.opt_einsum torch.backends.python_native torch.backends.quantized torch.backends.xeon
torch.backends.xeon.run_cpu torch.backends.xnnpack torch.compiler torch.compiler.config
torch.contrib torch.cpu torch.cpu.amp torch.cpu.amp.autocast_mode torch.cpu.amp.grad_scaler
torch.cuda torch.cuda.amp torch.cuda.amp.autocast_mode torch.cuda.amp.common
torch.cuda.amp.grad_scaler torch.cuda.comm torch.cuda.gds torch.cuda.graphs
torch.cuda.green_contexts torch.cuda.jiterator torch.cuda.memory torch.cuda.nccl torch.cuda.nvtx
torch.cuda.profiler torch.cuda.random torch.cuda.sparse torch.cuda.streams torch.cuda.tunable
torch.distributed torch.distributed.algorithms torch.distributed.algorithms.ddp_comm_hooks
torch.distributed.algorithms.ddp_comm_hooks.ddp_zero_hook
torch.distributed.algorithms.ddp_comm_hooks.debugging_hooks
torch.distributed.algorithms.ddp_comm_hooks.default_hooks
torch.distributed.algorithms.ddp_comm_hooks.mixed_precision_hooks
torch.distributed.algorithms.ddp_comm_hooks.optimizer_overlap_hooks
torch.distributed.algorithms.ddp_comm_hooks.post_localSGD_hook
torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook
torch.distributed.algorithms.ddp_comm_hooks.quantization_hooks torch.distributed.algorithms.join
torch.distributed.algorithms.model_averaging torch.distributed.algorithms.model_averaging.averagers
torch.distributed.algorithms.model_averaging.hierarchical_model_averager
torch.distributed.algorithms.model_averaging.utils torch.distributed.argparse_util
torch.distributed.autograd torch.distributed.c10d_logger torch.distributed.checkpoint
torch.distributed.checkpoint.api torch.distributed.checkpoint.default_planner
torch.distributed.checkpoint.filesystem torch.distributed.checkpoint.format_utils
torch.distributed.checkpoint.hf_storage torch.distributed.checkpoint.logger
torch.distributed.checkpoint.logging_handlers torch.distributed.checkpoint.metadata
torch.distributed.checkpoint.optimizer torch.distributed.checkpoint.planner
torch.distributed.checkpoint.planner_helpers torch.distributed.checkpoint.quantized_hf_storage
torch.distributed.checkpoint.resharding torch.distributed.checkpoint.staging
torch.distributed.checkpoint.state_dict torch.distributed.checkpoint.state_dict_loader
torch.distributed.checkpoint.state_dict_saver torch.distributed.checkpoint.stateful
torch.distributed.checkpoint.storage torch.distributed.checkpoint.utils
torch.distributed.collective_utils torch.distributed.config torch.distributed.constants
torch.distributed.debug torch.distributed.device_mesh torch.distributed.distributed_c10d
torch.distributed.elastic torch.distributed.elastic.agent torch.distributed.elastic.agent.server
torch.distributed.elastic.agent.server.api
torch.distributed.elastic.agent.server.health_check_server
torch.distributed.elastic.agent.server.local_elastic_agent torch.distributed.elastic.control_plane
torch.distributed.elastic.events torch.distributed.elastic.events.api
torch.distributed.elastic.events.handlers torch.distributed.elastic.metrics
torch.distributed.elastic.metrics.api torch.distributed.elastic.multiprocessing
torch.distributed.elastic.multiprocessing.api torch.distributed.elastic.multiprocessing.errors
torch.distributed.elastic.multiprocessing.errors.error_handler
torch.distributed.elastic.multiprocessing.errors.handlers
torch.distributed.elastic.multiprocessing.redirects
torch.distributed.elastic.multiprocessing.subprocess_handler
torch.distributed.elastic.multiprocessing.subprocess_handler.handlers
torch.distributed.elastic.multiprocessing.subprocess_handler.subprocess_handler
torch.distributed.elastic.multiprocessing.tail_log torch.distributed.elastic.rendezvous
torch.distributed.elastic.rendezvous.api
torch.distributed.elastic.rendezvous.c10d_rendezvous_backend
torch.distributed.elastic.rendezvous.dynamic_rendezvous
torch.distributed.elastic.rendezvous.etcd_rendezvous
torch.distributed.elastic.rendezvous.etcd_rendezvous_backend
torch.distributed.elastic.rendezvous.etcd_server torch.distributed.elastic.rendezvous.etcd_store
torch.distributed.elastic.rendezvous.registry
torch.distributed.elastic.rendezvous.static_tcp_rendezvous
torch.distributed.elastic.rendezvous.utils torch.distributed.elastic.timer
torch.distributed.elastic.timer.api torch.distributed.elastic.timer.debug_info_logging
torch.distributed.elastic.timer.file_based_local_timer torch.distributed.elastic.timer.local_timer
torch.distributed.elastic.utils torch.distributed.elastic.utils.api
torch.distributed.elastic.utils.data torch.distributed.elastic.utils.data.cycling_iterator
torch.distributed.elastic.utils.data.elastic_distributed_sampler
torch.distributed.elastic.utils.distributed torch.distributed.elastic.utils.log_level
torch.distributed.elastic.utils.logging torch.distributed.elastic.utils.process_state
torch.distributed.elastic.utils.store torch.distributed.flight_recorder
torch.distributed.flight_recorder.components torch.distributed.flight_recorder.components.builder
torch.distributed.flight_recorder.components.config_manager
torch.distributed.flight_recorder.components.fr_logger
torch.distributed.flight_recorder.components.loader
torch.distributed.flight_recorder.components.types
torch.distributed.flight_recorder.components.utils torch.distributed.flight_recorder.fr_trace
torch.distributed.fsdp torch.distributed.fsdp.api
torch.distributed.fsdp.fully_sharded_data_parallel torch.distributed.fsdp.sharded_grad_scaler
torch.distributed.fsdp.wrap torch.distributed.launch torch.distributed.launcher
torch.distributed.launcher.api torch.distributed.logging_handlers torch.distributed.nn
torch.distributed.nn.api torch.distributed.nn.api.remote_module torch.distributed.nn.functional
torch.distributed.nn.jit torch.distributed.nn.jit.instantiator torch.distributed.nn.jit.templates
torch.distributed.nn.jit.templates.remote_module_template torch.distributed.optim
torch.distributed.optim.apply_optimizer_in_backward torch.distributed.optim.functional_adadelta
torch.distributed.optim.functional_adagrad torch.distributed.optim.functional_adam
torch.distributed.optim.functional_adamax torch.distributed.optim.functional_adamw
torch.distributed.optim.functional_rmsprop torch.distributed.optim.functional_rprop
torch.distributed.optim.functional_sgd torch.distributed.optim.named_optimizer
torch.distributed.optim.optimizer torch.distributed.optim.post_localSGD_optimizer
torch.distributed.optim.utils torch.distributed.optim.zero_redundancy_optimizer
torch.distributed.pipelining torch.distributed.pipelining.microbatch
torch.distributed.pipelining.schedules torch.distributed.pipelining.stage
torch.distributed.remote_device torch.distributed.rendezvous torch.distributed.rpc
torch.distributed.rpc.api torch.distributed.rpc.backend_registry torch.distributed.rpc.constants
torch.distributed.rpc.functions torch.distributed.rpc.internal torch.distributed.rpc.options
torch.distributed.rpc.rref_proxy torch.distributed.rpc.server_process_global_profiler
torch.distributed.run torch.distributed.tensor torch.distributed.tensor.debug
torch.distributed.tensor.device_mesh torch.distributed.tensor.experimental
torch.distributed.tensor.parallel torch.distributed.tensor.parallel.api
torch.distributed.tensor.parallel.ddp torch.distributed.tensor.parallel.fsdp
torch.distributed.tensor.parallel.input_reshard torch.distributed.tensor.parallel.loss
torch.distributed.tensor.parallel.style torch.distributed.tensor.placement_types
torch.distributed.utils torch.distributions torch.distributions.bernoulli torch.distributions.beta
torch.distributions.binomial torch.distributions.categorical torch.distributions.cauchy
torch.distributions.chi2 torch.distributions.constraint_registry torch.distributions.constraints
torch.distributions.continuous_bernoulli torch.distributions.dirichlet
torch.distributions.distribution torch.distributions.exp_family torch.distributions.exponential
torch.distributions.fishersnedecor torch.distributions.gamma torch.distributions.generalized_pareto
torch.distributions.geometric torch.distributions.gumbel torch.distributions.half_cauchy
torch.distributions.half_normal torch.distributions.independent torch.distributions.inverse_gamma
torch.distributions.kl torch.distributions.kumaraswamy torch.distributions.laplace
torch.distributions.lkj_cholesky torch.distributions.log_normal torch.distributions.logistic_normal
torch.distributions.lowrank_multivariate_normal torch.distributions.mixture_same_family
torch.distributions.multinomial torch.distributions.multivariate_normal
torch.distributions.negative_binomial torch.distributions.normal
torch.distributions.one_hot_categorical torch.distributions.pareto torch.distributions.poisson
torch.distributions.relaxed_bernoulli torch.distributions.relaxed_categorical
torch.distributions.studentT torch.distributions.transformed_distribution
torch.distributions.transforms torch.distributions.uniform torch.distributions.utils
torch.distributions.von_mises torch.distributions.weibull torch.distributions.wishart torch.export
torch.export.custom_obj torch.export.custom_ops torch.export.decomp_utils
torch.export.dynamic_shapes torch.export.experimental torch.export.exported_program
torch.export.graph_signature torch.export.passes torch.export.pt2_archive
torch.export.pt2_archive.constants torch.export.unflatten torch.fft torch.func torch.functional
torch.futures torch.fx torch.fx.annotate torch.fx.config torch.fx.experimental
torch.fx.experimental.accelerator_partitioner torch.fx.experimental.const_fold
torch.fx.experimental.debug torch.fx.experimental.dynamic_spec
torch.fx.experimental.graph_gradual_typechecker torch.fx.experimental.merge_matmul
torch.fx.experimental.meta_tracer torch.fx.experimental.migrate_gradual_types
torch.fx.experimental.migrate_gradual_types.constraint
torch.fx.experimental.migrate_gradual_types.constraint_generator
torch.fx.experimental.migrate_gradual_types.constraint_transformation
torch.fx.experimental.migrate_gradual_types.operation
torch.fx.experimental.migrate_gradual_types.transform_to_z3
torch.fx.experimental.migrate_gradual_types.util
torch.fx.experimental.migrate_gradual_types.z3_types torch.fx.experimental.normalize
torch.fx.experimental.optimization torch.fx.experimental.partitioner_utils
torch.fx.experimental.proxy_tensor torch.fx.experimental.recording
torch.fx.experimental.refinement_types torch.fx.experimental.rewriter
torch.fx.experimental.schema_type_annotation torch.fx.experimental.sym_node
torch.fx.experimental.symbolic_shapes torch.fx.experimental.unification
torch.fx.experimental.unification.core torch.fx.experimental.unification.dispatch
torch.fx.experimental.unification.match torch.fx.experimental.unification.more
torch.fx.experimental.unification.multipledispatch
torch.fx.experimental.unification.multipledispatch.conflict
torch.fx.experimental.unification.multipledispatch.core
torch.fx.experimental.unification.multipledispatch.dispatcher
torch.fx.experimental.unification.multipledispatch.utils
torch.fx.experimental.unification.multipledispatch.variadic
torch.fx.experimental.unification.unification_tools torch.fx.experimental.unification.utils
torch.fx.experimental.unification.variable torch.fx.experimental.unify_refinements
torch.fx.experimental.validator torch.fx.graph torch.fx.graph_module torch.fx.immutable_collections
torch.fx.interpreter torch.fx.node torch.fx.operator_schemas torch.fx.passes
torch.fx.passes.annotate_getitem_nodes torch.fx.passes.backends torch.fx.passes.backends.cudagraphs
torch.fx.passes.dialect torch.fx.passes.dialect.common torch.fx.passes.dialect.common.cse_pass
torch.fx.passes.fake_tensor_prop torch.fx.passes.graph_drawer torch.fx.passes.graph_manipulation
torch.fx.passes.graph_transform_observer torch.fx.passes.infra torch.fx.passes.infra.partitioner
torch.fx.passes.infra.pass_base torch.fx.passes.infra.pass_manager torch.fx.passes.net_min_base
torch.fx.passes.operator_support torch.fx.passes.param_fetch torch.fx.passes.pass_manager
torch.fx.passes.regional_inductor torch.fx.passes.regional_inductor_invoke_subgraph
torch.fx.passes.reinplace torch.fx.passes.runtime_assert torch.fx.passes.shape_prop
torch.fx.passes.split_module torch.fx.passes.split_utils torch.fx.passes.splitter_base
torch.fx.passes.tests torch.fx.passes.tests.test_pass_manager torch.fx.passes.tools_common
torch.fx.passes.utils torch.fx.passes.utils.common torch.fx.passes.utils.fuser_utils
torch.fx.passes.utils.matcher_utils torch.fx.passes.utils.matcher_with_name_node_map_utils
torch.fx.passes.utils.source_matcher_utils torch.fx.proxy torch.fx.subgraph_rewriter
torch.fx.tensor_type torch.fx.traceback torch.hub torch.jit torch.jit.annotations
torch.jit.frontend torch.jit.generate_bytecode torch.jit.mobile torch.jit.quantized
torch.jit.supported_ops torch.jit.unsupported_tensor_ops torch.library torch.linalg torch.masked
torch.masked.maskedtensor torch.masked.maskedtensor.binary torch.masked.maskedtensor.core
torch.masked.maskedtensor.creation torch.masked.maskedtensor.passthrough
torch.masked.maskedtensor.reductions torch.masked.maskedtensor.unary torch.monitor torch.mps
torch.mps.event torch.mps.profiler torch.mtia torch.mtia.memory torch.mtia.mtia_graph
torch.multiprocessing torch.multiprocessing.pool torch.multiprocessing.queue
torch.multiprocessing.reductions torch.multiprocessing.spawn torch.nativert torch.nativert.backends
torch.nested torch.nn torch.nn.attention torch.nn.attention.bias torch.nn.attention.experimental
torch.nn.attention.flex_attention torch.nn.attention.varlen torch.nn.backends
torch.nn.backends.thnn torch.nn.common_types torch.nn.cpp torch.nn.functional torch.nn.grad
torch.nn.init torch.nn.intrinsic torch.nn.intrinsic.modules torch.nn.intrinsic.modules.fused
torch.nn.intrinsic.qat torch.nn.intrinsic.qat.modules torch.nn.intrinsic.qat.modules.conv_fused
torch.nn.intrinsic.qat.modules.linear_fused torch.nn.intrinsic.qat.modules.linear_relu
torch.nn.intrinsic.quantized torch.nn.intrinsic.quantized.dynamic
torch.nn.intrinsic.quantized.dynamic.modules
torch.nn.intrinsic.quantized.dynamic.modules.linear_relu torch.nn.intrinsic.quantized.modules
torch.nn.intrinsic.quantized.modules.bn_relu torch.nn.intrinsic.quantized.modules.conv_relu
torch.nn.intrinsic.quantized.modules.linear_relu torch.nn.modules torch.nn.modules.activation
torch.nn.modules.adaptive torch.nn.modules.batchnorm torch.nn.modules.channelshuffle
torch.nn.modules.container torch.nn.modules.conv torch.nn.modules.distance torch.nn.modules.dropout
torch.nn.modules.flatten torch.nn.modules.fold torch.nn.modules.instancenorm torch.nn.modules.lazy
torch.nn.modules.linear torch.nn.modules.linear_cross_entropy
torch.nn.modules.linear_cross_entropy_options torch.nn.modules.loss torch.nn.modules.module
torch.nn.modules.normalization torch.nn.modules.padding torch.nn.modules.pixelshuffle
torch.nn.modules.pooling torch.nn.modules.rnn torch.nn.modules.sparse torch.nn.modules.transformer
torch.nn.modules.upsampling torch.nn.modules.utils torch.nn.parallel torch.nn.parallel.comm
torch.nn.parallel.data_parallel torch.nn.parallel.distributed torch.nn.parallel.parallel_apply
torch.nn.parallel.replicate torch.nn.parallel.scatter_gather torch.nn.parameter torch.nn.qat
torch.nn.qat.dynamic torch.nn.qat.dynamic.modules torch.nn.qat.dynamic.modules.linear
torch.nn.qat.modules torch.nn.qat.modules.conv torch.nn.qat.modules.embedding_ops
torch.nn.qat.modules.linear torch.nn.quantizable torch.nn.quantizable.modules
torch.nn.quantizable.modules.activation torch.nn.quantizable.modules.rnn torch.nn.quantized
torch.nn.quantized.dynamic torch.nn.quantized.dynamic.modules
torch.nn.quantized.dynamic.modules.conv torch.nn.quantized.dynamic.modules.linear
torch.nn.quantized.dynamic.modules.rnn torch.nn.quantized.functional torch.nn.quantized.modules
torch.nn.quantized.modules.activation torch.nn.quantized.modules.batchnorm
torch.nn.quantized.modules.conv torch.nn.quantized.modules.dropout
torch.nn.quantized.modules.embedding_ops torch.nn.quantized.modules.functional_modules
torch.nn.quantized.modules.linear torch.nn.quantized.modules.normalization
torch.nn.quantized.modules.rnn torch.nn.quantized.modules.utils torch.nn.utils
torch.nn.utils.clip_grad torch.nn.utils.convert_parameters torch.nn.utils.fusion
torch.nn.utils.init torch.nn.utils.memory_format torch.nn.utils.parametrizations
torch.nn.utils.parametrize torch.nn.utils.prune torch.nn.utils.rnn torch.nn.utils.spectral_norm
torch.nn.utils.stateless torch.nn.utils.weight_norm torch.numa torch.numa.binding torch.onnx
torch.onnx.errors torch.onnx.operators torch.onnx.ops torch.onnx.symbolic_helper
torch.onnx.symbolic_opset10 torch.onnx.symbolic_opset11 torch.onnx.symbolic_opset12
torch.onnx.symbolic_opset13 torch.onnx.symbolic_opset14 torch.onnx.symbolic_opset15
torch.onnx.symbolic_opset16 torch.onnx.symbolic_opset17 torch.onnx.symbolic_opset18
torch.onnx.symbolic_opset19 torch.onnx.symbolic_opset20 torch.onnx.symbolic_opset7
torch.onnx.symbolic_opset8 torch.onnx.symbolic_opset9 torch.onnx.testing torch.onnx.utils
torch.onnx.verification torch.optim torch.optim.adadelta torch.optim.adagrad torch.optim.adam
torch.optim.adamax torch.optim.adamw torch.optim.asgd torch.optim.lbfgs torch.optim.lr_scheduler
torch.optim.nadam torch.optim.optimizer torch.optim.radam torch.optim.rmsprop torch.optim.rprop
torch.optim.sgd torch.optim.sparse_adam torch.optim.swa_utils torch.overrides torch.package
torch.package.analyze torch.package.analyze.find_first_use_of_broken_modules
torch.package.analyze.is_from_package torch.package.analyze.trace_dependencies
torch.package.file_structure_representation torch.package.find_file_dependencies
torch.package.glob_group torch.package.importer torch.package.package_exporter
torch.package.package_importer torch.profiler torch.profiler.itt torch.profiler.profiler
torch.profiler.python_tracer torch.quantization torch.quantization.fake_quantize
torch.quantization.fuse_modules torch.quantization.fuser_method_mappings torch.quantization.fx
torch.quantization.fx.convert torch.quantization.fx.fuse torch.quantization.fx.fusion_patterns
torch.quantization.fx.graph_module torch.quantization.fx.match_utils
torch.quantization.fx.pattern_utils torch.quantization.fx.prepare
torch.quantization.fx.quantization_patterns torch.quantization.fx.quantization_types
torch.quantization.fx.utils torch.quantization.observer torch.quantization.qconfig
torch.quantization.quant_type torch.quantization.quantization_mappings torch.quantization.quantize
torch.quantization.quantize_fx torch.quantization.quantize_jit torch.quantization.stubs
torch.quantization.utils torch.quasirandom torch.random torch.return_types torch.serialization
torch.signal torch.signal.windows torch.signal.windows.windows torch.sparse
torch.sparse.semi_structured torch.special torch.storage torch.testing torch.torch_version
torch.types torch.utils torch.utils.backcompat torch.utils.backend_registration
torch.utils.benchmark torch.utils.benchmark.examples torch.utils.benchmark.examples.compare
torch.utils.benchmark.examples.fuzzer torch.utils.benchmark.examples.op_benchmark
torch.utils.benchmark.examples.simple_timeit torch.utils.benchmark.examples.spectral_ops_fuzz_test
torch.utils.benchmark.op_fuzzers torch.utils.benchmark.op_fuzzers.binary
torch.utils.benchmark.op_fuzzers.sparse_binary torch.utils.benchmark.op_fuzzers.sparse_unary
torch.utils.benchmark.op_fuzzers.spectral torch.utils.benchmark.op_fuzzers.unary
torch.utils.benchmark.utils torch.utils.benchmark.utils.common torch.utils.benchmark.utils.compare
torch.utils.benchmark.utils.compile torch.utils.benchmark.utils.cpp_jit
torch.utils.benchmark.utils.fuzzer torch.utils.benchmark.utils.sparse_fuzzer
torch.utils.benchmark.utils.timer torch.utils.benchmark.utils.valgrind_wrapper
torch.utils.benchmark.utils.valgrind_wrapper.timer_interface torch.utils.bundled_inputs
torch.utils.checkpoint torch.utils.collect_env torch.utils.cpp_backtrace torch.utils.cpp_extension
torch.utils.data torch.utils.data.backward_compatibility torch.utils.data.dataloader
torch.utils.data.datapipes torch.utils.data.datapipes.dataframe
torch.utils.data.datapipes.dataframe.dataframe_wrapper
torch.utils.data.datapipes.dataframe.dataframes torch.utils.data.datapipes.dataframe.datapipes
torch.utils.data.datapipes.dataframe.structures torch.utils.data.datapipes.datapipe
torch.utils.data.datapipes.gen_pyi torch.utils.data.datapipes.iter
torch.utils.data.datapipes.iter.callable torch.utils.data.datapipes.iter.combinatorics
torch.utils.data.datapipes.iter.combining torch.utils.data.datapipes.iter.filelister
torch.utils.data.datapipes.iter.fileopener torch.utils.data.datapipes.iter.grouping
torch.utils.data.datapipes.iter.routeddecoder torch.utils.data.datapipes.iter.selecting
torch.utils.data.datapipes.iter.sharding torch.utils.data.datapipes.iter.streamreader
torch.utils.data.datapipes.iter.utils torch.utils.data.datapipes.map
torch.utils.data.datapipes.map.callable torch.utils.data.datapipes.map.combinatorics
torch.utils.data.datapipes.map.combining torch.utils.data.datapipes.map.grouping
torch.utils.data.datapipes.map.utils torch.utils.data.datapipes.utils
torch.utils.data.datapipes.utils.common torch.utils.data.datapipes.utils.decoder
torch.utils.data.datapipes.utils.snapshot torch.utils.data.dataset torch.utils.data.distributed
torch.utils.data.graph torch.utils.data.graph_settings torch.utils.data.sampler
torch.utils.debug_log torch.utils.deterministic torch.utils.dlpack torch.utils.file_baton
torch.utils.flop_counter torch.utils.hipify torch.utils.hipify.constants
torch.utils.hipify.cuda_to_hip_mappings torch.utils.hipify.hipify_python torch.utils.hipify.version
torch.utils.hooks torch.utils.jit torch.utils.jit.log_extract torch.utils.mkldnn
torch.utils.mobile_optimizer torch.utils.model_dump torch.utils.model_zoo
torch.utils.module_tracker torch.utils.serialization torch.utils.serialization.config
torch.utils.show_pickle torch.utils.tensorboard torch.utils.tensorboard.summary
torch.utils.tensorboard.writer torch.utils.throughput_benchmark torch.utils.viz torch.utils.weak
torch.version torch.xpu torch.xpu.graphs torch.xpu.memory torch.xpu.random torch.xpu.streams
torchvision torchvision.datasets torchvision.datasets.caltech torchvision.datasets.celeba
torchvision.datasets.cifar torchvision.datasets.cityscapes torchvision.datasets.clevr
torchvision.datasets.coco torchvision.datasets.country211 torchvision.datasets.dtd
torchvision.datasets.eurosat torchvision.datasets.fakedata torchvision.datasets.fer2013
torchvision.datasets.fgvc_aircraft torchvision.datasets.flickr torchvision.datasets.flowers102
torchvision.datasets.folder torchvision.datasets.food101 torchvision.datasets.gtsrb
torchvision.datasets.hmdb51 torchvision.datasets.imagenet torchvision.datasets.imagenette
torchvision.datasets.inaturalist torchvision.datasets.kinetics torchvision.datasets.kitti
torchvision.datasets.lfw torchvision.datasets.lsun torchvision.datasets.mnist
torchvision.datasets.moving_mnist torchvision.datasets.omniglot
torchvision.datasets.oxford_iiit_pet torchvision.datasets.pcam torchvision.datasets.phototour
torchvision.datasets.places365 torchvision.datasets.rendered_sst2 torchvision.datasets.samplers
torchvision.datasets.samplers.clip_sampler torchvision.datasets.sbd torchvision.datasets.sbu
torchvision.datasets.semeion torchvision.datasets.stanford_cars torchvision.datasets.stl10
torchvision.datasets.sun397 torchvision.datasets.svhn torchvision.datasets.ucf101
torchvision.datasets.usps torchvision.datasets.utils torchvision.datasets.video_utils
torchvision.datasets.vision torchvision.datasets.voc torchvision.datasets.widerface
torchvision.extension torchvision.io torchvision.io.image torchvision.io.video torchvision.models
torchvision.models.alexnet torchvision.models.convnext torchvision.models.densenet
torchvision.models.detection torchvision.models.detection.anchor_utils
torchvision.models.detection.backbone_utils torchvision.models.detection.faster_rcnn
torchvision.models.detection.fcos torchvision.models.detection.generalized_rcnn
torchvision.models.detection.image_list torchvision.models.detection.keypoint_rcnn
torchvision.models.detection.mask_rcnn torchvision.models.detection.retinanet
torchvision.models.detection.roi_heads torchvision.models.detection.rpn
torchvision.models.detection.ssd torchvision.models.detection.ssdlite
torchvision.models.detection.transform torchvision.models.efficientnet
torchvision.models.feature_extraction torchvision.models.googlenet torchvision.models.inception
torchvision.models.maxvit torchvision.models.mnasnet torchvision.models.mobilenet
torchvision.models.mobilenetv2 torchvision.models.mobilenetv3 torchvision.models.optical_flow
torchvision.models.optical_flow.raft torchvision.models.quantization
torchvision.models.quantization.googlenet torchvision.models.quantization.inception
torchvision.models.quantization.mobilenet torchvision.models.quantization.mobilenetv2
torchvision.models.quantization.mobilenetv3 torchvision.models.quantization.resnet
torchvision.models.quantization.shufflenetv2 torchvision.models.quantization.utils
torchvision.models.regnet torchvision.models.resnet torchvision.models.segmentation
torchvision.models.segmentation.deeplabv3 torchvision.models.segmentation.fcn
torchvision.models.segmentation.lraspp torchvision.models.shufflenetv2
torchvision.models.squeezenet torchvision.models.swin_transformer torchvision.models.vgg
torchvision.models.video torchvision.models.video.mvit torchvision.models.video.resnet
torchvision.models.video.s3d torchvision.models.video.swin_transformer
torchvision.models.vision_transformer torchvision.ops torchvision.ops.boxes
torchvision.ops.ciou_loss torchvision.ops.deform_conv torchvision.ops.diou_loss
torchvision.ops.drop_block torchvision.ops.feature_pyramid_network torchvision.ops.focal_loss
torchvision.ops.giou_loss torchvision.ops.misc torchvision.ops.poolers torchvision.ops.ps_roi_align
torchvision.ops.ps_roi_pool torchvision.ops.roi_align torchvision.ops.roi_pool
torchvision.ops.stochastic_depth torchvision.transforms torchvision.transforms.autoaugment
torchvision.transforms.functional torchvision.transforms.transforms torchvision.transforms.v2
torchvision.transforms.v2.functional torchvision.tv_tensors torchvision.utils torchvision.version
"""


if __name__ == "__main__":
    _main()
