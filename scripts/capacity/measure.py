#!/usr/bin/env python3
"""Measure on a real GPU what the capacity lobe predicts, and write it in the shape of
test/fixtures/capacity/h100-measurements.json (read by src/engines/capacity/*.test.ts through
src/engines/capacity/measurements-fixture.ts).

Needs: one CUDA GPU, torch, transformers (5.x), peft, accelerate. Nothing is downloaded: every model is built
from its config (the same facts as the presets in src/engines/capacity/models.ts) with random weights, which
take the same memory as the real ones.

Sections (all by default; pick with --only):
  device    total_memory and the CUDA context outside PyTorch's allocator
  fit       the /fit edge: static KV cache for batch x context, prefill in chunks of --chunk tokens per
            sequence (all sequences together, SDPA), then one decode step; which batches run and which OOM
  kv        DynamicCache sizes with the models' own sliding windows: tokens kept per layer, windowless/real
  peft      LoRA trainable counts under the installed transformers/peft (built on the meta device)
  training  LoRA AdamW: bytes kept after one optimizer step, per trainable parameter and beyond

Usage: python scripts/capacity/measure.py --out /tmp/measurements.json [--only fit,kv] [--chunk 1024]
The output replaces the fixture only as a whole, with its own source line; never edit figures by hand.
"""
import argparse
import gc
import json
import sys

try:  # the GPU stack lives only on a measuring machine; elsewhere the script says what it needs and stops
    import peft
    import torch
    import transformers
except ImportError as missing:
    sys.exit(f'measure.py needs a CUDA GPU with torch, transformers 5.x, peft and accelerate installed ({missing})')

MiB = 2**20

# Configs as the presets hold them (src/engines/capacity/models.ts), in config.json keys.
CONFIGS = {
    "llama-2-7b": dict(model_type="llama", hidden_size=4096, num_hidden_layers=32, num_attention_heads=32,
                       num_key_value_heads=32, intermediate_size=11008, vocab_size=32000,
                       max_position_embeddings=4096, tie_word_embeddings=False),
    "llama-3.1-8b": dict(model_type="llama", hidden_size=4096, num_hidden_layers=32, num_attention_heads=32,
                         num_key_value_heads=8, intermediate_size=14336, vocab_size=128256,
                         max_position_embeddings=131072, tie_word_embeddings=False, rope_theta=500000.0),
    "mistral-7b": dict(model_type="mistral", hidden_size=4096, num_hidden_layers=32, num_attention_heads=32,
                       num_key_value_heads=8, intermediate_size=14336, vocab_size=32000,
                       max_position_embeddings=32768, sliding_window=4096),
    "gemma-2-9b": dict(model_type="gemma2", hidden_size=3584, num_hidden_layers=42, num_attention_heads=16,
                       num_key_value_heads=8, head_dim=256, intermediate_size=14336, vocab_size=256000,
                       max_position_embeddings=8192, sliding_window=4096),
    "phi-3-mini": dict(model_type="phi3", hidden_size=3072, num_hidden_layers=32, num_attention_heads=32,
                       num_key_value_heads=32, intermediate_size=8192, vocab_size=32064,
                       max_position_embeddings=4096, sliding_window=2047),
    "mixtral-8x7b": dict(model_type="mixtral", hidden_size=4096, num_hidden_layers=32, num_attention_heads=32,
                         num_key_value_heads=8, intermediate_size=14336, vocab_size=32000,
                         max_position_embeddings=32768, num_local_experts=8, num_experts_per_tok=2),
}

FIT_EDGES = [("llama-2-7b", 4096, [30, 31, 32, 33]), ("llama-3.1-8b", 8192, [56, 57, 58, 59])]
KV_WINDOWS = [("mistral-7b", 6144), ("gemma-2-9b", 6144), ("phi-3-mini", 4096)]
PEFT_CASES = [("mixtral-8x7b", 8, "all-linear"), ("mixtral-8x7b", 16, ["w1", "w2", "w3"]), ("mixtral-8x7b", 16, None)]


def config_of(name):
    AutoConfig = transformers.AutoConfig
    c = dict(CONFIGS[name])
    return AutoConfig.for_model(c.pop("model_type"), **c)


def build(name, device="cuda", attn="sdpa"):
    AutoModelForCausalLM = transformers.AutoModelForCausalLM
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config_of(name), dtype=torch.bfloat16, attn_implementation=attn)
    return model.eval()


def free(*objs):
    for o in objs:
        del o
    gc.collect()
    torch.cuda.empty_cache()


def measure_device():
    torch.cuda.init()
    torch.zeros(1, device="cuda")
    free_b, total_b = torch.cuda.mem_get_info()
    outside = (total_b - free_b) - torch.cuda.memory_reserved()
    props = torch.cuda.get_device_properties(0)
    return {"total_bytes": props.total_memory, "cuda_context_mib": round(outside / MiB)}


def run_batch(model, batch, context, chunk):
    """Static cache for batch x context, prefill in chunks, one decode step. True if it ran."""
    StaticCache = transformers.StaticCache
    cache = None
    try:
        cache = StaticCache(config=model.config, max_cache_len=context + 1)
        vocab = model.config.vocab_size
        with torch.inference_mode():
            done = 0
            while done < context:
                step = min(chunk, context - done)
                ids = torch.randint(0, vocab, (batch, step), device="cuda")
                pos = torch.arange(done, done + step, device="cuda")
                out = model(input_ids=ids, past_key_values=cache, cache_position=pos, use_cache=True, logits_to_keep=1)
                done += step
                del out, ids
            ids = torch.randint(0, vocab, (batch, 1), device="cuda")
            model(input_ids=ids, past_key_values=cache, cache_position=torch.tensor([context], device="cuda"),
                  use_cache=True, logits_to_keep=1)
        torch.cuda.synchronize()
        return True
    except torch.cuda.OutOfMemoryError:
        return False
    finally:
        del cache
        free()


def measure_fit(chunk):
    edges = []
    for name, context, batches in FIT_EDGES:
        model = build(name)
        runs, oom = [], []
        for b in batches:
            (runs if run_batch(model, b, context, chunk) else oom).append(b)
            print(f"fit {name} context {context} batch {b}: {'runs' if b in runs else 'out of memory'}", file=sys.stderr)
        edges.append({"model": name, "context": context, "dtype": "bf16", "runs": runs, "out_of_memory": oom,
                      "api_before": None, "prefill_chunk": chunk})
        free(model)
    return edges


def measure_kv():
    DynamicCache = transformers.DynamicCache
    rows = []
    for name, tokens in KV_WINDOWS:
        model = build(name)
        cache = DynamicCache(config=model.config)
        with torch.inference_mode():
            done = 0
            while done < tokens:
                step = min(512, tokens - done)
                ids = torch.randint(0, model.config.vocab_size, (1, step), device="cuda")
                model(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1)
                done += step
        kept = [layer.keys.shape[-2] for layer in cache.layers]
        real = sum(k * layer.keys.shape[1] * layer.keys.shape[-1] * 2 for k, layer in zip(kept, cache.layers))
        full = sum(tokens * layer.keys.shape[1] * layer.keys.shape[-1] * 2 for layer in cache.layers)
        row = {"model": name, "tokens": tokens, "windowless_over_real": round(full / real - 1, 4),
               "tokens_kept_per_layer": min(kept)}
        rows.append(row)
        print(f"kv {row}", file=sys.stderr)
        free(model, cache)
    return rows


def measure_peft():
    LoraConfig = peft.LoraConfig
    get_peft_model = peft.get_peft_model
    rows = []
    for name, r, targets in PEFT_CASES:
        with torch.device("meta"):
            AutoModelForCausalLM = transformers.AutoModelForCausalLM
            model = AutoModelForCausalLM.from_config(config_of(name), dtype=torch.bfloat16)
        row = {"model": name, "r": r, "target_modules": targets if targets is not None else "default",
               "api_before_millions": None}
        try:
            peft_model = get_peft_model(model, LoraConfig(r=r, target_modules=targets))
            trainable, _ = peft_model.get_nb_trainable_parameters()
            row["trainable_millions"] = round(trainable / 1e6, 1)
            row["trainable"] = trainable
        except ValueError as e:
            row["refused"] = True
            row["reason"] = str(e)[:300]
        rows.append(row)
        print(f"peft {row}", file=sys.stderr)
    return rows


def measure_training():
    LoraConfig = peft.LoraConfig
    get_peft_model = peft.get_peft_model
    model = build("llama-2-7b", attn="sdpa")
    model.train()
    model = get_peft_model(model, LoraConfig(r=16, target_modules="all-linear"))
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    ids = torch.randint(0, model.config.vocab_size, (1, 512), device="cuda")
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    del out
    opt.step()
    torch.cuda.synchronize()
    kept = torch.cuda.memory_allocated() - before
    extra = kept - 16 * trainable
    row = {"model": "llama-2-7b", "method": "lora", "r": 16, "target_modules": "all-linear", "optimizer": "AdamW",
           "trainable": trainable, "kept_after_one_step_bytes": kept,
           "after_one_step_bytes_per_trainable": 16, "after_one_step_extra_mib": round(extra / MiB),
           "api_before_error": None}
    print(f"training {row}", file=sys.stderr)
    free(model, opt)
    return [row]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--only", default="device,fit,kv,peft,training")
    p.add_argument("--chunk", type=int, default=1024, help="prefill tokens per sequence per forward (the /fit default)")
    a = p.parse_args()
    only = set(a.only.split(","))
    gpu = torch.cuda.get_device_name(0)
    env = {"gpu": gpu, "torch": torch.__version__, "transformers": transformers.__version__,
           "peft": peft.__version__, "cuda": torch.version.cuda or "unknown"}
    result = {
        "source": f"measured on {gpu}, torch {env['torch']}, transformers {env['transformers']}, peft {env['peft']}, "
                  f"CUDA {env['cuda']} — scripts/capacity/measure.py",
        "note": "Written by scripts/capacity/measure.py; random weights built from the presets' configs.",
        "format": 1,
        "environment": env,
        "device": measure_device() if "device" in only else None,
        "fit_edges": measure_fit(a.chunk) if "fit" in only else [],
        "kv_windows": measure_kv() if "kv" in only else [],
        "peft_trainable": measure_peft() if "peft" in only else [],
        "training_state": measure_training() if "training" in only else [],
    }
    with open(a.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
