<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ko_KR">
<context>
    <name>Autosave</name>
    <message>
        <source>Cannot autosave: the folder %1 cannot be created.</source>
        <translation>자동 저장할 수 없습니다: 폴더 %1을(를) 만들 수 없습니다.</translation>
    </message>
    <message>
        <source>Cannot autosave. %1</source>
        <translation>자동 저장할 수 없습니다. %1</translation>
    </message>
</context>
<context>
    <name>BreakdownChart</name>
    <message>
        <source>Peak: %1</source>
        <translation>피크: %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2&lt;br&gt;%3&lt;br&gt;%4 % of the %5 device memory used&lt;br&gt;&lt;i&gt;Click to explain&lt;/i&gt;</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2&lt;br&gt;%3&lt;br&gt;디바이스 사용량 %5 중 %4 %&lt;br&gt;&lt;i&gt;클릭하면 설명을 봅니다&lt;/i&gt;</translation>
    </message>
    <message>
        <source>%1
%2 · %3 %</source>
        <extracomment>legend entry on two lines: category, then size and share of device memory used</extracomment>
        <translation>%1
%2 · %3 %</translation>
    </message>
</context>
<context>
    <name>CapacityLine</name>
    <message>
        <source>Capacity
%1</source>
        <extracomment>the GPU&apos;s capacity, shown beside the chart&apos;s right edge on two lines</extracomment>
        <translation>용량
%1</translation>
    </message>
</context>
<context>
    <name>ChartExport</name>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 이미지 (*.png)</translation>
    </message>
    <message>
        <source>PDF document (*.pdf)</source>
        <translation>PDF 문서 (*.pdf)</translation>
    </message>
    <message>
        <source>SVG image (*.svg)</source>
        <translation>SVG 이미지 (*.svg)</translation>
    </message>
    <message>
        <source>Unknown image format &quot;%1&quot;: use %2.</source>
        <translation>알 수 없는 이미지 형식 &quot;%1&quot;: %2 중 하나를 쓰세요.</translation>
    </message>
    <message>
        <source>Could not write %1.</source>
        <translation>%1 파일을 쓸 수 없습니다.</translation>
    </message>
</context>
<context>
    <name>ChartStyle</name>
    <message>
        <source>Memory (%1)</source>
        <extracomment>chart axis; %1 is GiB or GB</extracomment>
        <translation>메모리 (%1)</translation>
    </message>
    <message>
        <source>No plan: see the message above the inputs</source>
        <translation>계획 없음: 입력 위의 메시지를 보세요</translation>
    </message>
</context>
<context>
    <name>CompareView</name>
    <message>
        <source>yes</source>
        <translation>예</translation>
    </message>
    <message>
        <source>no</source>
        <translation>아니요</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>모델</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>모드</translation>
    </message>
    <message>
        <source>Sharding</source>
        <translation>샤딩</translation>
    </message>
    <message>
        <source>CPU offload</source>
        <translation>CPU 오프로드</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>정밀도</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>가중치</translation>
    </message>
    <message>
        <source>Fine-tuning</source>
        <translation>파인튜닝</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>옵티마이저</translation>
    </message>
    <message>
        <source>Micro-batch × sequence</source>
        <translation>마이크로배치 × 시퀀스</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>그래디언트 누적</translation>
    </message>
    <message>
        <source>Checkpointing</source>
        <translation>체크포인팅</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>어텐션</translation>
    </message>
    <message>
        <source>Chunked cross-entropy</source>
        <translation>청크 단위 교차 엔트로피</translation>
    </message>
    <message>
        <source>Activation offload</source>
        <translation>활성값 오프로드</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <source>New tokens</source>
        <translation>생성 토큰</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>프로파일</translation>
    </message>
    <message>
        <source>inference</source>
        <translation>추론</translation>
    </message>
    <message>
        <source>full %1</source>
        <translation>전체 %1</translation>
    </message>
    <message>
        <source>Four scenarios is the limit: unpin one first.</source>
        <translation>시나리오는 네 개까지입니다: 먼저 하나를 고정 해제하세요.</translation>
    </message>
    <message>
        <source>Cannot pin: %1</source>
        <translation>고정할 수 없습니다: %1</translation>
    </message>
    <message>
        <source>capacity %1</source>
        <translation>용량 %1</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>들어감</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>메모리 부족</translation>
    </message>
    <message>
        <source>No scenario pinned yet.</source>
        <translation>아직 고정한 시나리오가 없습니다.</translation>
    </message>
    <message>
        <source>Double-click a name to rename it. Rows below the verdict list only the settings that differ.</source>
        <translation>이름을 더블클릭하면 바꿀 수 있습니다. 판정 아래 행에는 서로 다른 설정만 나옵니다.</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>고정 해제</translation>
    </message>
    <message>
        <source>Remove the selected scenario from the comparison</source>
        <translation>선택한 시나리오를 비교에서 뺍니다</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>이름</translation>
    </message>
    <message>
        <source>Device used</source>
        <translation>디바이스 사용량</translation>
    </message>
    <message>
        <source>Margin</source>
        <translation>여유</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>판정</translation>
    </message>
    <message>
        <source>Pin scenarios to compare them here (View ▸ Pin Scenario for Comparison, Ctrl+P).</source>
        <translation>시나리오를 고정하면 여기서 비교합니다 (보기 ▸ 비교용으로 시나리오 고정, Ctrl+P).</translation>
    </message>
    <message>
        <source>Compiled layers</source>
        <translation>컴파일된 레이어</translation>
    </message>
    <message>
        <source>Compiled loss</source>
        <translation>컴파일된 손실 함수</translation>
    </message>
    <message>
        <source>none</source>
        <translation>없음</translation>
    </message>
    <message>
        <source>Parallel layout</source>
        <translation>병렬 레이아웃</translation>
    </message>
</context>
<context>
    <name>DeviceStack</name>
    <message>
        <source>Allocator cache</source>
        <translation>할당자 캐시</translation>
    </message>
    <message>
        <source>CUDA context</source>
        <translation>CUDA 컨텍스트</translation>
    </message>
    <message>
        <source>Reserved by PyTorch&apos;s caching allocator but not holding a live tensor at the peak: every block is rounded up (512 bytes; requests over 10 MiB get their own segment rounded to 2 MiB) and freed blocks stay cached (fragmentation). It is peak reserved minus the tensors at the peak, from a simulation of c10/cuda/CUDACachingAllocator.cpp over the plan&apos;s allocations. Not yet checked on a GPU; against PyTorch&apos;s own allocation traces replayed through the same simulation it reads high (docs/validation/reference.md).</source>
        <translation>PyTorch 캐싱 할당자가 예약했지만 피크 시점에 살아 있는 텐서가 없는 메모리입니다. 모든 블록은 올림되고(512바이트 단위, 10 MiB를 넘는 요청은 자체 세그먼트로 2 MiB 단위), 해제된 블록은 캐시에 남습니다(단편화). 최대 예약량에서 피크 시점의 텐서를 뺀 값으로, 계획의 할당 순서에 c10/cuda/CUDACachingAllocator.cpp를 시뮬레이션해 얻습니다. 아직 GPU에서 확인하지 않았으며, PyTorch의 실제 할당 기록을 같은 시뮬레이션에 넣은 값보다 높게 나옵니다(docs/validation/reference.md).</translation>
    </message>
    <message>
        <source>The CUDA context and the kernels loaded lazily by the first operations. It lives outside the allocator, so torch.cuda counters do not show it but nvidia-smi does. An estimate until measured on the device (order of PyTorch PR #86509: 287 MB lazy, 667 MB eager).</source>
        <translation>CUDA 컨텍스트와 첫 연산들이 지연 로드하는 커널입니다. 할당자 밖에 있어서 torch.cuda 카운터에는 보이지 않지만 nvidia-smi에는 보입니다. 실제 GPU에서 측정하기 전까지는 추정값입니다(PyTorch PR #86509 기준: 지연 로드 287 MB, 즉시 로드 667 MB).</translation>
    </message>
</context>
<context>
    <name>DisplayNames</name>
    <message>
        <source>Weights</source>
        <translation>가중치</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>그래디언트</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>옵티마이저 상태</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>활성값</translation>
    </message>
    <message>
        <source>Logits and loss</source>
        <translation>로짓과 손실</translation>
    </message>
    <message>
        <source>Temporaries</source>
        <translation>임시 버퍼</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>워크스페이스</translation>
    </message>
    <message>
        <source>The model&apos;s parameters as stored on the GPU, plus the low-precision copies autocast makes of them.</source>
        <translation>GPU에 저장된 모델 파라미터와, autocast가 만드는 저정밀도 사본입니다.</translation>
    </message>
    <message>
        <source>One gradient per trainable parameter, produced in backward and consumed by the optimizer step.</source>
        <translation>학습 가능한 파라미터마다 하나씩, 역전파에서 만들어지고 옵티마이저 스텝에서 쓰입니다.</translation>
    </message>
    <message>
        <source>What the optimizer keeps between steps: moments, momentum, fp32 master weights.</source>
        <translation>옵티마이저가 스텝 사이에 유지하는 값: 모멘트, 모멘텀, fp32 마스터 가중치.</translation>
    </message>
    <message>
        <source>Tensors the forward pass saves for backward. They grow with micro-batch × sequence length; checkpointing trades them for recomputation.</source>
        <translation>순전파가 역전파를 위해 저장하는 텐서입니다. 마이크로배치 × 시퀀스 길이에 비례해 커지며, 그래디언트 체크포인팅은 이를 재계산으로 바꿉니다.</translation>
    </message>
    <message>
        <source>The output logits (vocabulary × tokens), their fp32 upcast in the loss, and their gradients.</source>
        <translation>출력 로짓(어휘 수 × 토큰 수), 손실 계산에서의 fp32 업캐스트, 그리고 그 그래디언트입니다.</translation>
    </message>
    <message>
        <source>Buffers that live within one event: backward temporaries, dequantized weights, optimizer buffers.</source>
        <translation>한 이벤트 동안만 사는 버퍼: 역전파 임시값, 역양자화된 가중치, 옵티마이저 버퍼.</translation>
    </message>
    <message>
        <source>Keys and values of every past token, kept for generation.</source>
        <translation>생성을 위해 보관하는, 지난 모든 토큰의 키와 값입니다.</translation>
    </message>
    <message>
        <source>Library workspaces (cuBLAS) allocated through the framework&apos;s allocator.</source>
        <translation>프레임워크 할당자를 통해 잡히는 라이브러리(cuBLAS) 워크스페이스입니다.</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>학습</translation>
    </message>
    <message>
        <source>Inference</source>
        <translation>추론</translation>
    </message>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>fp16 mixed precision</source>
        <translation>fp16 혼합 정밀도</translation>
    </message>
    <message>
        <source>bf16 mixed precision</source>
        <translation>bf16 혼합 정밀도</translation>
    </message>
    <message>
        <source>pure bf16</source>
        <translation>순수 bf16</translation>
    </message>
    <message>
        <source>pure fp16</source>
        <translation>순수 fp16</translation>
    </message>
    <message>
        <source>fp8 mixed precision</source>
        <translation>fp8 혼합 정밀도</translation>
    </message>
    <message>
        <source>None (16/32-bit)</source>
        <translation>없음 (16/32비트)</translation>
    </message>
    <message>
        <source>int8 (LLM.int8)</source>
        <translation>int8 (LLM.int8)</translation>
    </message>
    <message>
        <source>NF4 (4-bit)</source>
        <translation>NF4 (4비트)</translation>
    </message>
    <message>
        <source>NF4 + double quantization</source>
        <translation>NF4 + 이중 양자화</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation>모멘텀 SGD</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <source>8-bit AdamW</source>
        <translation>8비트 AdamW</translation>
    </message>
    <message>
        <source>Paged 8-bit AdamW</source>
        <translation>페이지드 8비트 AdamW</translation>
    </message>
    <message>
        <source>Lion</source>
        <translation>Lion</translation>
    </message>
    <message>
        <source>Adafactor</source>
        <translation>Adafactor</translation>
    </message>
    <message>
        <source>LOMO</source>
        <translation>LOMO</translation>
    </message>
    <message>
        <source>AdaLomo</source>
        <translation>AdaLomo</translation>
    </message>
    <message>
        <source>GaLore</source>
        <translation>GaLore</translation>
    </message>
    <message>
        <source>None (full fine-tuning)</source>
        <translation>없음 (전체 파인튜닝)</translation>
    </message>
    <message>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <source>QLoRA</source>
        <translation>QLoRA</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>끄기</translation>
    </message>
    <message>
        <source>Every layer</source>
        <translation>모든 레이어</translation>
    </message>
    <message>
        <source>Every k-th layer</source>
        <translation>k개 레이어마다</translation>
    </message>
    <message>
        <source>Eager</source>
        <translation>Eager</translation>
    </message>
    <message>
        <source>SDPA</source>
        <translation>SDPA</translation>
    </message>
    <message>
        <source>FlashAttention 2</source>
        <translation>FlashAttention 2</translation>
    </message>
    <message>
        <source>Trainer: outputs freed before backward</source>
        <translation>Trainer: 역전파 전에 출력 해제</translation>
    </message>
    <message>
        <source>Custom loop: outputs kept until the next step</source>
        <translation>직접 작성한 루프: 다음 스텝까지 출력 유지</translation>
    </message>
    <message>
        <source>Language model (masked LM for BERT)</source>
        <translation>언어 모델 (BERT는 마스크 언어 모델)</translation>
    </message>
    <message>
        <source>Sequence classification</source>
        <translation>시퀀스 분류</translation>
    </message>
    <message>
        <source>As the model&apos;s config says</source>
        <translation>모델 config 설정대로</translation>
    </message>
    <message>
        <source>On</source>
        <translation>켬</translation>
    </message>
    <message>
        <source>None (one GPU)</source>
        <translation>없음 (GPU 1개)</translation>
    </message>
    <message>
        <source>DDP (replicated)</source>
        <translation>DDP (복제)</translation>
    </message>
    <message>
        <source>ZeRO-1 (optimizer state)</source>
        <translation>ZeRO-1 (옵티마이저 상태)</translation>
    </message>
    <message>
        <source>ZeRO-2 (+ gradients)</source>
        <translation>ZeRO-2 (+ 그래디언트)</translation>
    </message>
    <message>
        <source>ZeRO-3 (+ parameters)</source>
        <translation>ZeRO-3 (+ 파라미터)</translation>
    </message>
    <message>
        <source>FSDP (full shard)</source>
        <translation>FSDP (전체 샤딩)</translation>
    </message>
    <message>
        <source>PyTorch eager</source>
        <translation>PyTorch eager</translation>
    </message>
    <message>
        <source>Headroom engine</source>
        <translation>Headroom 엔진</translation>
    </message>
    <message>
        <source>Predicts PyTorch eager with the transformers, PEFT and bitsandbytes conventions: fp32 logits in the loss, allocator rounding, cuBLAS workspaces, CUDA context.</source>
        <translation>transformers, PEFT, bitsandbytes 관례를 따르는 PyTorch eager를 예측합니다: 손실의 fp32 로짓, 할당자 올림, cuBLAS 워크스페이스, CUDA 컨텍스트.</translation>
    </message>
    <message>
        <source>Predicts Headroom&apos;s own engine: exactly the tensors of the table, nothing added.</source>
        <translation>Headroom 자체 엔진을 예측합니다: 표의 텐서 그대로, 더해지는 것이 없습니다.</translation>
    </message>
    <message>
        <source>fp16</source>
        <translation>fp16</translation>
    </message>
    <message>
        <source>bf16</source>
        <translation>bf16</translation>
    </message>
    <message>
        <source>fp8</source>
        <translation>fp8</translation>
    </message>
    <message>
        <source>int8</source>
        <translation>int8</translation>
    </message>
    <message>
        <source>load</source>
        <translation>로드</translation>
    </message>
    <message>
        <source>embedding forward</source>
        <translation>임베딩 순전파</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>순전파</translation>
    </message>
    <message>
        <source>head forward</source>
        <translation>헤드 순전파</translation>
    </message>
    <message>
        <source>loss forward</source>
        <translation>손실 순전파</translation>
    </message>
    <message>
        <source>loss backward</source>
        <translation>손실 역전파</translation>
    </message>
    <message>
        <source>head backward</source>
        <translation>헤드 역전파</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>역전파</translation>
    </message>
    <message>
        <source>embedding backward</source>
        <translation>임베딩 역전파</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>옵티마이저 스텝</translation>
    </message>
    <message>
        <source>decode</source>
        <translation>디코드</translation>
    </message>
    <message>
        <source>%1 layer %2</source>
        <extracomment>%1 is &quot;forward&quot; or &quot;backward&quot;, %2 the layer index</extracomment>
        <translation>레이어 %2 %1</translation>
    </message>
    <message>
        <source>once</source>
        <translation>1회</translation>
    </message>
    <message>
        <source>each layer</source>
        <translation>레이어마다</translation>
    </message>
    <message>
        <source>checkpointed layers</source>
        <translation>체크포인트 레이어</translation>
    </message>
    <message>
        <source>kept layers</source>
        <translation>보관 레이어</translation>
    </message>
    <message>
        <source>kept sliding-window layers</source>
        <translation>보관 슬라이딩 윈도 레이어</translation>
    </message>
    <message>
        <source>Full fine-tune, fp16 mixed, AdamW, eager attention</source>
        <translation>전체 파인튜닝, fp16 혼합, AdamW, eager 어텐션</translation>
    </message>
    <message>
        <source>Precision fp32</source>
        <translation>정밀도 fp32</translation>
    </message>
    <message>
        <source>Precision fp16 mixed</source>
        <translation>정밀도 fp16 혼합</translation>
    </message>
    <message>
        <source>Precision bf16 mixed</source>
        <translation>정밀도 bf16 혼합</translation>
    </message>
    <message>
        <source>Pure bf16</source>
        <translation>순수 bf16</translation>
    </message>
    <message>
        <source>+ gradient checkpointing</source>
        <translation>+ 그래디언트 체크포인팅</translation>
    </message>
    <message>
        <source>+ FlashAttention</source>
        <translation>+ FlashAttention</translation>
    </message>
    <message>
        <source>+ SDPA attention</source>
        <translation>+ SDPA 어텐션</translation>
    </message>
    <message>
        <source>+ chunked cross-entropy</source>
        <translation>+ 청크 단위 교차 엔트로피</translation>
    </message>
    <message>
        <source>Optimizer 8-bit AdamW</source>
        <translation>옵티마이저 8비트 AdamW</translation>
    </message>
    <message>
        <source>Optimizer paged 8-bit AdamW</source>
        <translation>옵티마이저 페이지드 8비트 AdamW</translation>
    </message>
    <message>
        <source>Optimizer Lion</source>
        <translation>옵티마이저 Lion</translation>
    </message>
    <message>
        <source>Optimizer Adafactor</source>
        <translation>옵티마이저 Adafactor</translation>
    </message>
    <message>
        <source>Optimizer LOMO</source>
        <translation>옵티마이저 LOMO</translation>
    </message>
    <message>
        <source>+ LoRA</source>
        <translation>+ LoRA</translation>
    </message>
    <message>
        <source>+ QLoRA (NF4 base)</source>
        <translation>+ QLoRA (NF4 베이스)</translation>
    </message>
    <message>
        <source>Micro-batch 1</source>
        <translation>마이크로배치 1</translation>
    </message>
    <message>
        <source>%1 B</source>
        <extracomment>billions of parameters</extracomment>
        <translation>%1 B</translation>
    </message>
    <message>
        <source>%1 M</source>
        <extracomment>millions of parameters</extracomment>
        <translation>%1 M</translation>
    </message>
    <message>
        <source>Selective, op level (torchtitan)</source>
        <translation>선택적, 연산 단위 (torchtitan)</translation>
    </message>
    <message>
        <source>FSDP2 (per-parameter shards)</source>
        <translation>FSDP2 (파라미터별 샤딩)</translation>
    </message>
</context>
<context>
    <name>ErrorText</name>
    <message>
        <source>A value is out of range.</source>
        <translation>값이 허용 범위를 벗어났습니다.</translation>
    </message>
    <message>
        <source>This model is not in the catalog.</source>
        <translation>카탈로그에 없는 모델입니다.</translation>
    </message>
    <message>
        <source>This model type is not supported.</source>
        <translation>지원하지 않는 모델 유형입니다.</translation>
    </message>
    <message>
        <source>This GPU is not in the catalog.</source>
        <translation>카탈로그에 없는 GPU입니다.</translation>
    </message>
    <message>
        <source>The file is not valid JSON.</source>
        <translation>올바른 JSON 파일이 아닙니다.</translation>
    </message>
    <message>
        <source>A required field is missing or has the wrong type.</source>
        <translation>필수 필드가 없거나 형식이 잘못되었습니다.</translation>
    </message>
    <message>
        <source>The file or folder was not found.</source>
        <translation>파일이나 폴더를 찾을 수 없습니다.</translation>
    </message>
    <message>
        <source>The file could not be read or written.</source>
        <translation>파일을 읽거나 쓸 수 없습니다.</translation>
    </message>
    <message>
        <source>A safetensors file has a malformed header.</source>
        <translation>safetensors 파일의 헤더가 잘못되었습니다.</translation>
    </message>
    <message>
        <source>These settings do not go together.</source>
        <translation>함께 쓸 수 없는 설정입니다.</translation>
    </message>
    <message>
        <source>The sizes are too large to compute.</source>
        <translation>크기가 너무 커서 계산할 수 없습니다.</translation>
    </message>
    <message>
        <source>Unknown error.</source>
        <translation>알 수 없는 오류입니다.</translation>
    </message>
    <message>
        <source>QLoRA trains adapters over a 4-bit base: choose NF4 weight quantization.</source>
        <translation>QLoRA는 4비트 베이스 위에서 어댑터를 학습합니다: 가중치 양자화를 NF4로 고르세요.</translation>
    </message>
    <message>
        <source>Quantized weights cannot be trained directly: choose LoRA or QLoRA, or no weight quantization.</source>
        <translation>양자화된 가중치는 직접 학습할 수 없습니다: LoRA나 QLoRA를 고르거나 가중치 양자화를 끄세요.</translation>
    </message>
    <message>
        <source>GaLore projects full-parameter gradients: it does not combine with LoRA or QLoRA.</source>
        <translation>GaLore는 전체 파라미터의 그래디언트를 투영합니다: LoRA나 QLoRA와 함께 쓸 수 없습니다.</translation>
    </message>
    <message>
        <source>Quantized (bitsandbytes) weights are not sharded by ZeRO-3: choose another sharding.</source>
        <translation>양자화된(bitsandbytes) 가중치는 ZeRO-3로 샤딩되지 않습니다: 다른 샤딩을 고르세요.</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <extracomment>%1 is a one-sentence summary, %2 names what is wrong</extracomment>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>%1 has no native bf16: PyTorch emulates it slowly or refuses; fp16 mixed precision is the usual choice.</source>
        <translation>%1은(는) bf16을 기본 지원하지 않습니다: PyTorch가 느리게 흉내 내거나 거부합니다. 보통은 fp16 혼합 정밀도를 씁니다.</translation>
    </message>
    <message>
        <source>%1 has no fp8 tensor cores (they need compute capability 8.9 or newer).</source>
        <translation>%1에는 fp8 텐서 코어가 없습니다 (compute capability 8.9 이상이 필요합니다).</translation>
    </message>
    <message>
        <source>Paged 8-bit AdamW: the optimizer state lives in CUDA managed memory, outside PyTorch&apos;s allocator counters but on the GPU while resident.</source>
        <translation>페이지드 8비트 AdamW: 옵티마이저 상태는 CUDA 관리 메모리에 있어 PyTorch 할당자 카운터에는 잡히지 않지만, 상주하는 동안에는 GPU를 차지합니다.</translation>
    </message>
    <message>
        <source>ZeRO-3 with CPU offload: the parameters live on the CPU; only the gathered layers occupy the GPU.</source>
        <translation>CPU 오프로드를 쓰는 ZeRO-3: 파라미터는 CPU에 있고, 모아 온 레이어만 GPU를 차지합니다.</translation>
    </message>
    <message>
        <source>CPU offload: the optimizer state and the fp32 master weights are held in CPU memory.</source>
        <translation>CPU 오프로드: 옵티마이저 상태와 fp32 마스터 가중치는 CPU 메모리에 둡니다.</translation>
    </message>
    <message>
        <source>The sequence length exceeds the model&apos;s maximum position embeddings (%1).</source>
        <translation>시퀀스 길이가 모델의 최대 위치 임베딩 수(%1)를 넘습니다.</translation>
    </message>
    <message>
        <source>The chosen LoRA target modules (%1) match no linear layer of this model.</source>
        <extracomment>%1 lists the requested module names</extracomment>
        <translation>고른 LoRA 대상 모듈(%1)이 이 모델의 어떤 선형 레이어와도 맞지 않습니다.</translation>
    </message>
    <message>
        <source>%1 must be between %2 and %3; it is %4.</source>
        <extracomment>%1 an input&apos;s name, %2 and %3 the bounds, %4 the value given</extracomment>
        <translation>%1은(는) %2 이상 %3 이하여야 합니다. 현재 값은 %4입니다.</translation>
    </message>
    <message>
        <source>The model&apos;s layers, hidden size, heads, KV heads, head size, MLP width and vocabulary must all be positive.</source>
        <translation>모델의 레이어 수, 히든 크기, 헤드 수, KV 헤드 수, 헤드 크기, MLP 폭, 어휘 크기는 모두 양수여야 합니다.</translation>
    </message>
    <message>
        <source>Inference weights must be fp32, fp16 or bf16, not %1.</source>
        <translation>추론 가중치는 fp32, fp16, bf16 중 하나여야 합니다 (%1은(는) 안 됩니다).</translation>
    </message>
    <message>
        <source>LoRA alpha must be above 0 and at most 1,000,000.</source>
        <translation>LoRA alpha는 0보다 크고 1,000,000 이하여야 합니다.</translation>
    </message>
    <message>
        <source>LoRA dropout must be at least 0 and below 1.</source>
        <translation>LoRA 드롭아웃은 0 이상 1 미만이어야 합니다.</translation>
    </message>
    <message>
        <source>The %1 export configures training; this scenario is inference.</source>
        <translation>%1 내보내기는 학습 설정입니다. 이 시나리오는 추론입니다.</translation>
    </message>
    <message>
        <source>The plan has no events to export.</source>
        <translation>계획에 내보낼 이벤트가 없습니다.</translation>
    </message>
    <message>
        <source>The number of GPUs</source>
        <translation>GPU 수</translation>
    </message>
    <message>
        <source>The inference batch</source>
        <translation>추론 배치</translation>
    </message>
    <message>
        <source>The prompt length</source>
        <translation>프롬프트 길이</translation>
    </message>
    <message>
        <source>The number of new tokens</source>
        <translation>새 토큰 수</translation>
    </message>
    <message>
        <source>The micro-batch</source>
        <translation>마이크로배치</translation>
    </message>
    <message>
        <source>The sequence length</source>
        <translation>시퀀스 길이</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>그래디언트 누적</translation>
    </message>
    <message>
        <source>Checkpoint every k</source>
        <translation>체크포인트 간격 k</translation>
    </message>
    <message>
        <source>The number of loss chunks</source>
        <translation>손실 청크 수</translation>
    </message>
    <message>
        <source>The LoRA rank</source>
        <translation>LoRA 랭크</translation>
    </message>
    <message>
        <source>The GaLore rank</source>
        <translation>GaLore 랭크</translation>
    </message>
    <message>
        <source>full fine-tune, fp32, AdamW</source>
        <translation>전체 파인튜닝, fp32, AdamW</translation>
    </message>
    <message>
        <source>full fine-tune, bf16 mixed, AdamW</source>
        <translation>전체 파인튜닝, bf16 혼합, AdamW</translation>
    </message>
    <message>
        <source>bf16 mixed + checkpointing + FlashAttention</source>
        <translation>bf16 혼합 + 체크포인팅 + FlashAttention</translation>
    </message>
    <message>
        <source>pure bf16 + 8-bit AdamW + checkpointing + FlashAttention</source>
        <translation>순수 bf16 + 8비트 AdamW + 체크포인팅 + FlashAttention</translation>
    </message>
    <message>
        <source>LoRA r16 (bf16 base) + checkpointing + FlashAttention</source>
        <translation>LoRA r16 (bf16 베이스) + 체크포인팅 + FlashAttention</translation>
    </message>
    <message>
        <source>QLoRA NF4-DQ r16 + checkpointing + FlashAttention + paged 8-bit AdamW</source>
        <translation>QLoRA NF4-DQ r16 + 체크포인팅 + FlashAttention + 페이지드 8비트 AdamW</translation>
    </message>
    <message>
        <source>inference, bf16 weights</source>
        <translation>추론, bf16 가중치</translation>
    </message>
    <message>
        <source>inference, NF4 weights</source>
        <translation>추론, NF4 가중치</translation>
    </message>
    <message>
        <source>This build of Headroom cannot reach the Hugging Face Hub.</source>
        <translation>이 Headroom 빌드는 Hugging Face Hub에 접속할 수 없습니다.</translation>
    </message>
    <message>
        <source>The Hugging Face Hub refused access to this model.</source>
        <translation>Hugging Face Hub가 이 모델에 대한 접근을 거부했습니다.</translation>
    </message>
    <message>
        <source>The Hugging Face Hub does not have this model, revision or file.</source>
        <translation>Hugging Face Hub에 이 모델, 리비전 또는 파일이 없습니다.</translation>
    </message>
    <message>
        <source>Offline mode is on and the model is not in the Hugging Face cache.</source>
        <translation>오프라인 모드가 켜져 있고 모델이 Hugging Face 캐시에 없습니다.</translation>
    </message>
    <message>
        <source>The Hugging Face Hub could not be reached or gave an unexpected answer.</source>
        <translation>Hugging Face Hub에 연결할 수 없거나 예상하지 못한 응답을 받았습니다.</translation>
    </message>
    <message>
        <source>The Hugging Face Hub did not answer in time.</source>
        <translation>Hugging Face Hub가 제한 시간 안에 응답하지 않았습니다.</translation>
    </message>
    <message>
        <source>The Hugging Face Hub sent too many redirects.</source>
        <translation>Hugging Face Hub가 리디렉션을 너무 많이 보냈습니다.</translation>
    </message>
    <message>
        <source>An answer from the Hugging Face Hub is larger than the limit.</source>
        <translation>Hugging Face Hub의 응답이 크기 제한을 넘었습니다.</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>취소했습니다.</translation>
    </message>
    <message>
        <source>The layout search plans training steps; this scenario is inference.</source>
        <translation>레이아웃 탐색은 학습 스텝을 계획합니다. 이 시나리오는 추론입니다.</translation>
    </message>
    <message>
        <source>The catalog has no published dense bf16 (or fp16) peak for %1, so the search cannot estimate step times.</source>
        <translation>카탈로그에 %1의 공개된 dense bf16(또는 fp16) 최대 성능이 없어서 탐색이 스텝 시간을 추정할 수 없습니다.</translation>
    </message>
    <message>
        <source>A global batch of %1 sequences does not divide by the data-parallel degree of any layout of %2 GPUs (%3): choose a global batch that one of them divides.</source>
        <extracomment>%1 sequences, %2 GPUs, %3 the data-parallel degrees tried</extracomment>
        <translation>전역 배치 시퀀스 %1개는 GPU %2개로 만들 수 있는 어떤 레이아웃의 데이터 병렬 차수(%3)로도 나누어떨어지지 않습니다. 이 중 하나로 나누어떨어지는 전역 배치를 고르세요.</translation>
    </message>
    <message>
        <source>No layout of %1 GPUs plans: %2</source>
        <translation>GPU %1개의 어떤 레이아웃도 계획할 수 없습니다: %2</translation>
    </message>
    <message>
        <source>LoRA, QLoRA and quantized weights are not planned with tensor or pipeline parallelism yet.</source>
        <translation>LoRA, QLoRA와 양자화 가중치는 아직 텐서 병렬이나 파이프라인 병렬과 함께 계획하지 않습니다.</translation>
    </message>
    <message>
        <source>The %1 attention heads do not divide by tensor parallelism %2.</source>
        <translation>어텐션 헤드 %1개가 텐서 병렬 %2로 나누어떨어지지 않습니다.</translation>
    </message>
    <message>
        <source>The %1 KV heads do not divide by tensor parallelism %2 (replicating KV heads is not modelled).</source>
        <translation>KV 헤드 %1개가 텐서 병렬 %2로 나누어떨어지지 않습니다 (KV 헤드 복제는 모델링하지 않습니다).</translation>
    </message>
    <message>
        <source>The MLP width %1 does not divide by tensor parallelism %2.</source>
        <translation>MLP 너비 %1이(가) 텐서 병렬 %2로 나누어떨어지지 않습니다.</translation>
    </message>
    <message>
        <source>Tensor and pipeline parallelism are planned for decoder language models without a vision tower, not %1.</source>
        <translation>텐서 병렬과 파이프라인 병렬은 비전 타워가 없는 디코더 언어 모델만 계획합니다. %1은(는) 해당하지 않습니다.</translation>
    </message>
    <message>
        <source>Op-level selective checkpointing with QLoRA (bitsandbytes&apos; 4-bit matrix products) is not modelled yet.</source>
        <translation>QLoRA(bitsandbytes의 4비트 행렬곱)와 함께 쓰는 연산 단위 선택적 체크포인팅은 아직 모델링하지 않습니다.</translation>
    </message>
    <message>
        <source>Headroom&apos;s own engine runs one GPU: plan tensor and pipeline parallelism with the PyTorch profile.</source>
        <translation>Headroom 자체 엔진은 GPU 하나에서 실행합니다. 텐서 병렬과 파이프라인 병렬은 PyTorch 프로파일로 계획하세요.</translation>
    </message>
    <message>
        <source>NCCL: %1 communicator(s) per GPU, about %2 of buffers outside PyTorch&apos;s caching allocator (544 MB for two ranks, 688 MB for more, measured on 4 A100s: NVIDIA/nccl#964; an estimate on other GPUs).</source>
        <translation>NCCL: GPU마다 통신자(communicator) %1개, PyTorch 캐싱 할당자 밖의 버퍼 약 %2 (랭크 2개면 544 MB, 그보다 많으면 688 MB. A100 4장에서 측정: NVIDIA/nccl#964. 다른 GPU에서는 추정치)</translation>
    </message>
    <message>
        <source>%1 virtual stages need pipeline parallelism: set more than one pipeline stage.</source>
        <translation>가상 스테이지 %1개에는 파이프라인 병렬이 필요합니다. 파이프라인 스테이지를 2개 이상으로 설정하세요.</translation>
    </message>
    <message>
        <source>The %1 layers do not divide into %4 model chunks (%2 pipeline stages × %3 virtual stages), which Megatron-LM requires; FSDP2 sharding plans torchtitan&apos;s uneven split.</source>
        <extracomment>%1 layers, %2 pipeline stages, %3 virtual stages, %4 = %2 x %3</extracomment>
        <translation>레이어 %1개가 모델 청크 %4개(파이프라인 스테이지 %2 × 가상 스테이지 %3)로 나누어떨어지지 않습니다. Megatron-LM은 균등 분할을 요구합니다. FSDP2 샤딩에서는 torchtitan의 불균등 분할로 계획합니다.</translation>
    </message>
    <message>
        <source>With %3 virtual stages (interleaved 1F1B) the %1 micro-batches (gradient accumulation) must divide by the %2 pipeline stages.</source>
        <extracomment>%1 micro-batches (gradient accumulation), %2 pipeline stages, %3 virtual stages</extracomment>
        <translation>가상 스테이지 %3개(인터리브드 1F1B)에서는 마이크로배치 %1개(그래디언트 누적)가 파이프라인 스테이지 %2개로 나누어떨어져야 합니다.</translation>
    </message>
    <message>
        <source>The experts are not quantized: transformers quantizes nn.Linear layers only and keeps the experts as 3-D parameters, which prepare_model_for_kbit_training then casts to fp32 (%1 here).</source>
        <translation>전문가(expert) 가중치는 양자화되지 않습니다: transformers는 nn.Linear 층만 양자화하고 전문가는 3차원 파라미터로 두며, prepare_model_for_kbit_training이 이를 fp32로 바꿉니다(여기서는 %1).</translation>
    </message>
    <message>
        <source>FSDP2 with CPU offload: the sharded parameters, gradients and optimizer state live in pinned CPU memory; the GPU holds the gathered layers, each layer&apos;s shard while it is gathered and its gradient shard until it is copied back (read from PyTorch&apos;s source, not measured).</source>
        <translation>FSDP2 CPU 오프로드: 샤딩된 파라미터, 그래디언트, 옵티마이저 상태는 고정(pinned) CPU 메모리에 있고, GPU에는 모인(gathered) 레이어, 모이는 동안의 각 레이어 샤드, CPU로 복사되기 전까지의 그래디언트 샤드만 있습니다(PyTorch 소스에서 읽은 값이며 측정하지 않음).</translation>
    </message>
    <message>
        <source>gpt-oss has no SDPA attention in transformers (it uses attention sinks): planned with its eager attention, transformers&apos; default for it.</source>
        <translation>gpt-oss는 transformers에서 SDPA 어텐션을 지원하지 않습니다(어텐션 싱크 사용): transformers의 기본값인 eager 어텐션으로 계획했습니다.</translation>
    </message>
    <message>
        <source>LoRA all-linear leaves the experts alone, as peft 0.18.1 does; peft 0.21 adapts them too and holds a copy of each layer&apos;s expert weights in its forward (measured: +7.3 % on Mixtral 8x7B).</source>
        <translation>LoRA all-linear은 peft 0.18.1처럼 전문가(expert)는 건드리지 않습니다. peft 0.21은 전문가에도 어댑터를 붙이고, 순전파마다 각 레이어의 전문가 가중치 사본을 만듭니다(측정: Mixtral 8x7B에서 +7.3 %).</translation>
    </message>
    <message>
        <source>Tensor parallelism with eager Float8 layers: each layer&apos;s forward is planned as the bf16 layers&apos; measured sequence plus Float8&apos;s casts, which no run has measured in that sequence (compiled Float8 layers were, on an H200); peak reserved may be off by a few percent.</source>
        <translation>텐서 병렬에 eager Float8 레이어: 각 레이어의 순전파는 bf16 레이어에서 측정한 순서에 Float8의 캐스트를 더해 계획하며, 그 순서 안의 캐스트는 어떤 실행에서도 측정하지 않았습니다 (compile한 Float8 레이어는 H200에서 측정했습니다). 예약 메모리 최대치가 몇 퍼센트 어긋날 수 있습니다.</translation>
    </message>
    <message>
        <source>planned with the headroom profile (the engine&apos;s own program), not the scenario&apos;s %1 profile</source>
        <extracomment>%1 the scenario&apos;s runtime profile (pytorch, deepspeed...)</extracomment>
        <translation>headroom 프로파일(엔진 자체의 프로그램)로 계획했습니다. 시나리오의 %1 프로파일이 아닙니다</translation>
    </message>
    <message>
        <source>other processes used %1 MiB of the device before this run; they are left out of the device-used figure</source>
        <translation>이 실행 전에 다른 프로세스가 장치에서 %1 MiB를 사용했습니다. 디바이스 사용량 수치에서는 제외했습니다</translation>
    </message>
    <message>
        <source>planned and measured agree to the byte at every event, per category and per tensor row</source>
        <translation>계획과 측정이 모든 이벤트에서 범주별, 텐서 행별로 바이트 단위까지 일치합니다</translation>
    </message>
    <message>
        <source>FSDP with LoRA or QLoRA: each gathered layer is planned as its stored weights (4-bit packed for QLoRA) and only the adapters get gradients; no run has checked it (PEFT&apos;s documented 70B run on 2 GPUs states neither its counter nor its unit).</source>
        <translation>LoRA 또는 QLoRA와 FSDP: 모아 온 각 레이어는 저장된 그대로의 가중치(QLoRA는 4비트로 묶인 가중치)로 계획하고, 기울기는 어댑터에만 생깁니다. 어떤 실행으로도 확인하지 않았습니다 (PEFT 문서의 GPU 2개 70B 실행은 카운터도 단위도 밝히지 않습니다).</translation>
    </message>
    <message>
        <source>FSDP with CPU offload (offload_params): the sharded parameters, their gradients and the optimizer state live in CPU memory; the GPU holds the gathered units and each unsharded gradient until its reduce-scatter (read from PyTorch&apos;s source, not measured).</source>
        <translation>FSDP CPU 오프로드(offload_params): 샤딩된 파라미터, 그 그래디언트, 옵티마이저 상태는 CPU 메모리에 있습니다. GPU에는 모인(gather) 유닛과, reduce-scatter 전까지의 샤딩되지 않은 그래디언트만 남습니다(PyTorch 소스에서 읽은 것이며 측정하지 않았습니다).</translation>
    </message>
    <message>
        <source>Llama 4: every layer is planned alike, with RoPE and the q/k L2 norm; the layers without RoPE (their query temperature scaling) and chunked attention&apos;s mask are not modelled.</source>
        <translation>Llama 4: 모든 레이어를 RoPE와 q/k L2 정규화가 있는 같은 레이어로 계획합니다. RoPE가 없는 레이어(쿼리 온도 스케일링)와 청크 어텐션의 마스크는 모델링하지 않았습니다.</translation>
    </message>
    <message>
        <source>DeepSeek-V3: its %1 dense first layers and %2 mixture-of-experts layers are planned each as transformers runs them, with multi-head latent attention on the memory-efficient kernel; checked against PyTorch on the meta device and on one H200 (a small configuration within 0.9 %, torchtitan&apos;s 16B ranks within 0.2 % of peak allocated; the output copy of cuDNN attention, which sm_90 GPUs run, is not modelled).</source>
        <extracomment>%1 dense layers, %2 mixture-of-experts layers</extracomment>
        <translation>DeepSeek-V3: 앞쪽 밀집(dense) 레이어 %1개와 전문가 혼합(MoE) 레이어 %2개를 각각 transformers가 실행하는 방식대로 계획합니다. 다중 헤드 잠재 어텐션(MLA)은 memory-efficient 커널로 계산합니다. meta 장치의 PyTorch와 대조했고 H200 한 대에서도 확인했습니다(작은 구성은 0.9 % 이내, torchtitan의 16B 랭크는 최대 할당량 0.2 % 이내). sm_90 GPU가 쓰는 cuDNN 어텐션의 출력 복사는 모델링하지 않습니다.</translation>
    </message>
    <message>
        <source>The %1 routed experts do not divide into %2 groups (n_group).</source>
        <extracomment>%1 routed experts, %2 expert groups (DeepSeek-V3&apos;s n_group)</extracomment>
        <translation>라우팅 전문가 %1개가 %2개 그룹(n_group)으로 나누어떨어지지 않습니다.</translation>
    </message>
    <message>
        <source>%1 groups (n_group) leave fewer than 2 of the %2 routed experts in a group; the router scores each group by its best two.</source>
        <extracomment>%1 expert groups (n_group), %2 routed experts</extracomment>
        <translation>그룹 %1개(n_group)로 나누면 라우팅 전문가 %2개 중 한 그룹에 2개 미만이 남습니다. 라우터는 각 그룹을 상위 두 전문가로 점수를 매깁니다.</translation>
    </message>
    <message>
        <source>A token keeps %1 expert groups (topk_group), more than the %2 there are (n_group).</source>
        <extracomment>%1 groups a token keeps (topk_group), %2 expert groups (n_group)</extracomment>
        <translation>토큰이 유지하는 전문가 그룹 %1개(topk_group)가 전체 그룹 수 %2개(n_group)보다 많습니다.</translation>
    </message>
    <message>
        <source>%1 experts per token is more than the %2 experts of the groups a token keeps (topk_group).</source>
        <extracomment>%1 experts per token, %2 experts in the groups a token keeps</extracomment>
        <translation>토큰당 전문가 %1개는 토큰이 유지하는 그룹(topk_group)의 전문가 %2개보다 많습니다.</translation>
    </message>
    <message>
        <source>Expert parallelism splits the routed experts of a mixture-of-experts model; this %1 model has none.</source>
        <extracomment>%1 a model family (llama, gemma...)</extracomment>
        <translation>전문가 병렬화는 전문가 혼합(MoE) 모델의 라우팅 전문가를 나눕니다. 이 %1 모델에는 전문가가 없습니다.</translation>
    </message>
    <message>
        <source>The %1 routed experts do not divide by the expert-parallel degree %2.</source>
        <extracomment>%1 routed experts, %2 the expert-parallel degree</extracomment>
        <translation>라우팅 전문가 %1개가 전문가 병렬 차수 %2로 나누어떨어지지 않습니다.</translation>
    </message>
    <message>
        <source>Expert tensor parallelism %1 times expert parallelism %2 must divide the %3 GPUs of a pipeline stage (tensor x context x data parallel): Megatron-LM lays the experts over the same GPUs as the other layers.</source>
        <extracomment>%1 expert tensor-parallel degree, %2 expert-parallel degree, %3 GPUs of one pipeline stage</extracomment>
        <translation>전문가 텐서 병렬 %1 곱하기 전문가 병렬 %2는 파이프라인 단계 하나의 GPU %3개(텐서 × 컨텍스트 × 데이터 병렬)를 나누어떨어지게 해야 합니다. Megatron-LM은 전문가를 다른 층과 같은 GPU에 배치합니다.</translation>
    </message>
    <message>
        <source>Expert tensor parallelism splits the routed experts of a mixture-of-experts model; this %1 model has none.</source>
        <extracomment>%1 a model family (llama, gemma...)</extracomment>
        <translation>전문가 텐서 병렬은 전문가 혼합(MoE) 모델의 라우팅 전문가를 나눕니다. 이 %1 모델에는 전문가가 없습니다.</translation>
    </message>
    <message>
        <source>The expert width %1 does not divide by expert tensor parallelism %2.</source>
        <extracomment>%1 the experts&apos; intermediate width, %2 the expert tensor-parallel degree</extracomment>
        <translation>전문가 폭 %1은(는) 전문가 텐서 병렬 %2로 나누어떨어지지 않습니다.</translation>
    </message>
    <message>
        <source>Megatron-LM trains mixture-of-experts layers under tensor parallelism only with sequence parallelism; turn sequence parallelism on.</source>
        <translation>Megatron-LM은 텐서 병렬에서 전문가 혼합 층을 시퀀스 병렬과 함께일 때만 학습합니다. 시퀀스 병렬을 켜세요.</translation>
    </message>
    <message>
        <source>Capacity factors and routing imbalance apply to mixture-of-experts models; this %1 model has no experts.</source>
        <extracomment>%1 a model family (llama, gemma...)</extracomment>
        <translation>용량 계수와 라우팅 불균형은 전문가 혼합 모델에 적용됩니다. 이 %1 모델에는 전문가가 없습니다.</translation>
    </message>
    <message>
        <source>Capacity factors and routing imbalance are planned as Megatron-LM&apos;s token dispatcher runs them: with tensor, pipeline or expert parallelism above 1 and DDP or the distributed optimizer (ZeRO-1).</source>
        <translation>용량 계수와 라우팅 불균형은 Megatron-LM의 토큰 디스패처 방식대로 계획합니다. 텐서, 파이프라인 또는 전문가 병렬이 1보다 크고 DDP나 분산 옵티마이저(ZeRO-1)를 쓸 때입니다.</translation>
    </message>
    <message>
        <source>Padding the experts&apos; input to capacity needs a capacity factor.</source>
        <translation>전문가 입력을 용량까지 채우려면 용량 계수가 필요합니다.</translation>
    </message>
    <message>
        <source>A routing imbalance of %1 is more than the busiest expert-parallel GPU can receive: at most %2 times the even share.</source>
        <extracomment>%1 the imbalance asked for, %2 the most one GPU can receive (a ratio)</extracomment>
        <translation>라우팅 불균형 %1은(는) 가장 바쁜 전문가 병렬 GPU가 받을 수 있는 양보다 큽니다. 많아야 균등 몫의 %2배입니다.</translation>
    </message>
    <message>
        <source>Under FSDP2 the expert-parallel degree %1 must divide torchtitan&apos;s dp_shard × cp × tp = %2, the experts&apos; region (HSDP&apos;s replicate groups are not part of it).</source>
        <extracomment>%1 the expert-parallel degree, %2 torchtitan&apos;s dp_shard x cp x tp</extracomment>
        <translation>FSDP2에서는 전문가 병렬 차수 %1이(가) torchtitan의 dp_shard × cp × tp = %2(전문가 영역)를 나누어떨어지게 해야 합니다(HSDP의 복제 그룹은 여기에 들지 않습니다).</translation>
    </message>
    <message>
        <source>Expert parallelism is planned as Megatron-LM runs it: full fine-tuning in bf16 or fp16 mixed precision or fp32, AdamW or SGD, with DDP or the distributed optimizer (ZeRO-1) and no CPU offload; or as torchtitan runs it, under FSDP2.</source>
        <translation>전문가 병렬은 Megatron-LM 방식대로 계획합니다. bf16 또는 fp16 혼합 정밀도나 fp32의 전체 미세조정, AdamW 또는 SGD, DDP나 분산 옵티마이저(ZeRO-1), CPU 오프로드 없음일 때입니다. 또는 torchtitan 방식대로 FSDP2에서 계획합니다.</translation>
    </message>
    <message>
        <source>%1 make all %2 layers dense: no layer is a mixture-of-experts layer. Import it as a dense &quot;%3&quot; model.</source>
        <extracomment>%1 the config.json fields, %2 the layer count, %3 a dense model type (qwen3, llama)</extracomment>
        <translation>%1 때문에 %2개 층이 모두 밀집 층이 됩니다. 전문가 혼합 층이 하나도 없으니 밀집 &quot;%3&quot; 모델로 가져오세요.</translation>
    </message>
    <message>
        <source>DeepSeek-V3: its %1 mixture-of-experts layers are planned each as transformers runs them, with multi-head latent attention on the memory-efficient kernel; checked against PyTorch on the meta device and on one H200 (a small configuration within 0.9 %, torchtitan&apos;s 16B ranks within 0.2 % of peak allocated; the output copy of cuDNN attention, which sm_90 GPUs run, is not modelled).</source>
        <extracomment>%1 mixture-of-experts layers (a pipeline stage without dense layers)</extracomment>
        <translation>DeepSeek-V3: 전문가 혼합(MoE) 레이어 %1개를 transformers가 실행하는 방식대로 계획합니다. 다중 헤드 잠재 어텐션(MLA)은 memory-efficient 커널로 계산합니다. meta 장치의 PyTorch와 대조했고 H200 한 대에서도 확인했습니다(작은 구성은 0.9 % 이내, torchtitan의 16B 랭크는 최대 할당량 0.2 % 이내). sm_90 GPU가 쓰는 cuDNN 어텐션의 출력 복사는 모델링하지 않습니다.</translation>
    </message>
    <message>
        <source>The shared experts&apos; width %1 does not divide by tensor parallelism %2.</source>
        <translation>공유 전문가의 너비 %1이(가) 텐서 병렬 %2로 나누어떨어지지 않습니다.</translation>
    </message>
    <message>
        <source>The dense layers&apos; MLP width %1 does not divide by tensor parallelism %2.</source>
        <translation>밀집(dense) 레이어의 MLP 너비 %1이(가) 텐서 병렬 %2로 나누어떨어지지 않습니다.</translation>
    </message>
    <message>
        <source>Tensor parallelism is planned for Llama-layout models (Llama, Mistral, Qwen, Gemma, Phi-3, Mixtral, Qwen3-MoE, gpt-oss, Llama 4) and DeepSeek-V3, not %1.</source>
        <translation>텐서 병렬은 Llama 구조 모델(Llama, Mistral, Qwen, Gemma, Phi-3, Mixtral, Qwen3-MoE, gpt-oss, Llama 4)과 DeepSeek-V3에 대해 계획하며 %1은(는) 대상이 아닙니다.</translation>
    </message>
    <message>
        <source>Expert parallelism together with tensor parallelism under FSDP2 (torchtitan&apos;s expert tensor parallelism) is not modelled yet; without expert parallelism the experts are split over the tensor-parallel GPUs.</source>
        <translation>FSDP2에서 전문가 병렬과 텐서 병렬을 함께 쓰는 구성(torchtitan의 전문가 텐서 병렬)은 아직 모델링하지 않습니다. 전문가 병렬 없이는 전문가를 텐서 병렬 GPU에 나누어 둡니다.</translation>
    </message>
    <message>
        <source>Under FSDP2 without expert parallelism torchtitan splits each expert over the %1 tensor-parallel GPUs: expert tensor parallelism must be %1, not %2.</source>
        <extracomment>%1 the tensor-parallel degree, %2 the expert tensor-parallel degree asked for</extracomment>
        <translation>FSDP2에서 전문가 병렬이 없으면 torchtitan은 각 전문가를 텐서 병렬 GPU %1개에 나눕니다. 전문가 텐서 병렬은 %2이(가) 아니라 %1이어야 합니다.</translation>
    </message>
    <message>
        <source>Llama 4 under tensor parallelism with FSDP2 is not modelled yet: transformers runs every expert on every token.</source>
        <translation>FSDP2에서 텐서 병렬을 쓰는 Llama 4는 아직 모델링하지 않습니다. transformers는 모든 토큰에 모든 전문가를 실행합니다.</translation>
    </message>
    <message>
        <source>The expert width %1 does not divide by tensor parallelism %2.</source>
        <extracomment>%1 the experts&apos; intermediate width, %2 the tensor-parallel degree</extracomment>
        <translation>전문가 너비 %1이(가) 텐서 병렬 %2로 나누어떨어지지 않습니다.</translation>
    </message>
    <message>
        <source>The %1 step applies to torch.optim&apos;s AdamW and SGD; %2 has its own.</source>
        <extracomment>%1 the step implementation (fused, for-loop), %2 an optimizer name</extracomment>
        <translation>%1 스텝은 torch.optim의 AdamW와 SGD에만 적용됩니다. %2은(는) 자체 스텝을 씁니다.</translation>
    </message>
    <message>
        <source>The weighted pipeline split (the embedding and the output each counted as a layer) is torchtitan&apos;s and is planned under FSDP2 sharding; Megatron-LM&apos;s stages split the layers alone.</source>
        <translation>가중 파이프라인 분할(임베딩과 출력층을 각각 레이어 하나로 셈)은 torchtitan의 방식이라 FSDP2 샤딩에서만 계획합니다. Megatron-LM의 스테이지는 레이어만으로 나눕니다.</translation>
    </message>
    <message>
        <source>The weighted split puts %1 layers, with the embedding and the output counted as one layer each (%2), over %3 stages: fewer than two a stage, so the first or the last stage would hold no layer. Use fewer stages or the layers-only split.</source>
        <extracomment>%1 decoder layers, %2 = %1 + 2, %3 pipeline stages (virtual stages included)</extracomment>
        <translation>가중 분할은 레이어 %1개에 임베딩과 출력층을 하나씩 더한 %2개를 스테이지 %3개에 나눕니다. 스테이지당 2개 미만이라 첫 스테이지나 마지막 스테이지에 레이어가 남지 않습니다. 스테이지 수를 줄이거나 레이어만으로 나누는 분할을 쓰세요.</translation>
    </message>
    <message>
        <source>The outputs a pipeline schedule returns are planned for torch&apos;s pipeline schedules as torchtitan runs them: more than one pipeline stage and FSDP2 sharding.</source>
        <translation>파이프라인 스케줄이 반환하는 출력은 torchtitan이 쓰는 torch 파이프라인 스케줄에 대해서만 계획합니다. 파이프라인 스테이지가 2개 이상이고 FSDP2 샤딩이어야 합니다.</translation>
    </message>
    <message>
        <source>Weighted pipeline split (torchtitan&apos;s generate_llm_fqn_per_model_part): the embedding and the output each count as one layer; the stages hold %1 decoder layers.</source>
        <extracomment>%1 the decoder layers of each (virtual) stage in order, e.g. &quot;3, 4, 4, 2&quot;</extracomment>
        <translation>가중 파이프라인 분할(torchtitan의 generate_llm_fqn_per_model_part): 임베딩과 출력층을 각각 레이어 하나로 셉니다. 스테이지별 디코더 레이어는 %1개입니다.</translation>
    </message>
</context>
<context>
    <name>ExplainPanel</name>
    <message>
        <source>No plan: fix the inputs on the left.</source>
        <translation>계획 없음: 왼쪽 입력을 고치세요.</translation>
    </message>
    <message>
        <source>%1 at the peak</source>
        <translation>피크 시 %1</translation>
    </message>
    <message>
        <source>Peak reserved %1 · peak allocated %2.</source>
        <translation>최대 예약량 %1 · 최대 할당량 %2.</translation>
    </message>
    <message>
        <source>%1 at the peak (%2)</source>
        <translation>피크(%2) 시 %1</translation>
    </message>
    <message>
        <source>Tensors alive at the peak: %1 of %2; grey rows exist at other moments of the step.</source>
        <translation>피크 시 살아 있는 텐서: %2개 중 %1개. 회색 행은 스텝의 다른 시점에 존재합니다.</translation>
    </message>
    <message>
        <source>Nothing of this category in this plan.</source>
        <translation>이 계획에는 이 항목이 없습니다.</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;: %2 per instance × %3 alive at the peak (of %4) = %5</source>
        <extracomment>%1 tensor name, %2 bytes per instance, %3 instances alive at the peak, %4 all instances (&quot;32 instances, each layer&quot;), %5 bytes at the peak</extracomment>
        <translation>&lt;b&gt;%1&lt;/b&gt;: 인스턴스당 %2 × 피크 시 살아 있는 %3개 (%4) = %5</translation>
    </message>
    <message>
        <source>No plan</source>
        <translation>계획 없음</translation>
    </message>
</context>
<context>
    <name>ExportActions</name>
    <message>
        <source>Cannot copy</source>
        <translation>복사할 수 없음</translation>
    </message>
    <message>
        <source>Hugging Face &amp;training script (Python)…</source>
        <translation>Hugging Face 학습 스크립트 (Python)(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;DeepSpeed config (JSON)…</source>
        <translation>DeepSpeed 설정 (JSON)(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;accelerate FSDP config (YAML)…</source>
        <translation>accelerate FSDP 설정 (YAML)(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Markdown report…</source>
        <translation>Markdown 보고서(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Timeline (CSV)…</source>
        <translation>타임라인 (CSV)(&amp;L)…</translation>
    </message>
    <message>
        <source>&amp;Plan (JSON)…</source>
        <translation>계획 (JSON)(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Scenario (JSON)…</source>
        <translation>시나리오 (JSON)(&amp;S)…</translation>
    </message>
    <message>
        <source>Python script (*.py)</source>
        <translation>Python 스크립트 (*.py)</translation>
    </message>
    <message>
        <source>DeepSpeed config (*.json)</source>
        <translation>DeepSpeed 설정 (*.json)</translation>
    </message>
    <message>
        <source>accelerate config (*.yaml *.yml)</source>
        <translation>accelerate 설정 (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>CSV table (*.csv)</source>
        <translation>CSV 표 (*.csv)</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Headroom scenarios (*.headroom.json)</source>
        <translation>Headroom 시나리오 (*.headroom.json)</translation>
    </message>
    <message>
        <source>Cannot export %1. %2</source>
        <translation>%1을(를) 내보낼 수 없습니다. %2</translation>
    </message>
    <message>
        <source>Cannot write %1. %2</source>
        <translation>%1을(를) 쓸 수 없습니다. %2</translation>
    </message>
    <message>
        <source>There is no plan to export. %1</source>
        <extracomment>%1 is the reason the planner gave</extracomment>
        <translation>내보낼 계획이 없습니다. %1</translation>
    </message>
    <message>
        <source>%1 on %2 × %3</source>
        <translation>%1, %2 × %3</translation>
    </message>
    <message>
        <source>Fits, %1 to spare</source>
        <translation>들어갑니다, %1 여유</translation>
    </message>
    <message>
        <source>Out of memory by %1</source>
        <translation>메모리 부족 (OOM), %1 초과</translation>
    </message>
    <message>
        <source>Device used (nvidia-smi)</source>
        <translation>디바이스 사용량 (nvidia-smi)</translation>
    </message>
    <message>
        <source>Capacity</source>
        <translation>용량</translation>
    </message>
    <message>
        <source>There is no chart in this view.</source>
        <translation>이 보기에는 차트가 없습니다.</translation>
    </message>
    <message>
        <source>The chart could not be drawn.</source>
        <translation>차트를 그릴 수 없습니다.</translation>
    </message>
    <message>
        <source>Cannot export</source>
        <translation>내보낼 수 없음</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>내보내기</translation>
    </message>
    <message>
        <source>Cannot export report</source>
        <translation>보고서를 내보낼 수 없음</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation>보고서 내보내기</translation>
    </message>
    <message>
        <source>PDF document (*.pdf)</source>
        <translation>PDF 문서 (*.pdf)</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 저장함</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>복사함</translation>
    </message>
    <message>
        <source>Export &amp;As</source>
        <translation>다른 형식으로 내보내기(&amp;A)</translation>
    </message>
    <message>
        <source>Export &amp;Report (PDF)…</source>
        <translation>보고서 내보내기 (PDF)(&amp;R)…</translation>
    </message>
    <message>
        <source>A printable report: the scenario, the verdict, the charts, the formulas with their sources and the recommendations</source>
        <translation>인쇄용 보고서: 시나리오, 판정, 차트, 출처가 달린 공식, 권장 사항</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>편집(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Copy Plan as Markdown</source>
        <translation>계획을 Markdown으로 복사(&amp;C)</translation>
    </message>
    <message>
        <source>Copy Plan as &amp;Text</source>
        <translation>계획을 텍스트로 복사(&amp;T)</translation>
    </message>
    <message>
        <source>Copy C&amp;hart as Image</source>
        <translation>차트를 이미지로 복사(&amp;H)</translation>
    </message>
    <message>
        <source>M&amp;egatron-LM arguments (shell)…</source>
        <translation>Megatron-LM 인수 (셸)(&amp;E)…</translation>
    </message>
    <message>
        <source>torchtitan &amp;job file (TOML)…</source>
        <translation>torchtitan 작업 파일 (TOML)(&amp;J)…</translation>
    </message>
    <message>
        <source>Shell script (*.sh)</source>
        <translation>셸 스크립트 (*.sh)</translation>
    </message>
    <message>
        <source>torchtitan job file (*.toml)</source>
        <translation>torchtitan 작업 파일 (*.toml)</translation>
    </message>
</context>
<context>
    <name>GpuText</name>
    <message>
        <source>%1 · %2</source>
        <extracomment>GPU list entry: name · nvidia-smi total</extracomment>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>nvidia-smi total %1; a process can allocate %2 (%3)</source>
        <translation>nvidia-smi 총량 %1, 프로세스가 할당할 수 있는 양 %2 (%3)</translation>
    </message>
    <message>
        <source>The plan fits against the nvidia-smi total %1 (no CUDA figure known: slightly optimistic)</source>
        <translation>계획은 nvidia-smi 총량 %1에 맞춥니다 (CUDA 수치를 몰라 약간 낙관적입니다)</translation>
    </message>
    <message>
        <source>The plan fits against %1, what CUDA can allocate (nvidia-smi shows %2)</source>
        <translation>계획은 CUDA가 할당할 수 있는 %1에 맞춥니다 (nvidia-smi 표시 %2)</translation>
    </message>
</context>
<context>
    <name>HardwareGroup</name>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>The GPU to fit: the list shows the total nvidia-smi prints; the plan fits against what CUDA can allocate</source>
        <translation>맞출 GPU: 목록은 nvidia-smi가 표시하는 총량이고, 계획은 CUDA가 할당할 수 있는 양에 맞춥니다</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 수</translation>
    </message>
    <message>
        <source>Number of GPUs; the plan is for one of them</source>
        <translation>GPU 개수. 계획은 그중 한 장에 대한 것입니다</translation>
    </message>
    <message>
        <source>Sharding</source>
        <translation>샤딩</translation>
    </message>
    <message>
        <source>How model states are split across the GPUs (DeepSpeed ZeRO, PyTorch FSDP)</source>
        <translation>모델 상태를 GPU들에 나누는 방식 (DeepSpeed ZeRO, PyTorch FSDP)</translation>
    </message>
    <message>
        <source>CPU offload</source>
        <translation>CPU 오프로드</translation>
    </message>
    <message>
        <source>ZeRO-Offload / FSDP CPU offload: optimizer states (and with stage 3, parameters) live in CPU memory</source>
        <translation>ZeRO-Offload / FSDP CPU 오프로드: 옵티마이저 상태(3단계에서는 파라미터도)가 CPU 메모리에 있습니다</translation>
    </message>
    <message>
        <source>Tensor parallel</source>
        <translation>텐서 병렬</translation>
    </message>
    <message>
        <source>GPUs that split each layer&apos;s weights and activations (Megatron-LM); GPUs / (tensor x pipeline x context) is the data-parallel degree</source>
        <translation>각 레이어의 가중치와 활성값을 나누어 맡는 GPU 수 (Megatron-LM); GPU 수 / (텐서 × 파이프라인 × 컨텍스트)가 데이터 병렬 차수</translation>
    </message>
    <message>
        <source>Sequence parallel</source>
        <translation>시퀀스 병렬</translation>
    </message>
    <message>
        <source>Split the norm, dropout and residual activations over the tensor-parallel GPUs too</source>
        <translation>정규화, 드롭아웃, 잔차 활성값도 텐서 병렬 GPU들에 나눔</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>파이프라인 스테이지</translation>
    </message>
    <message>
        <source>Stages the layers are split into; the plan shows the fullest stage</source>
        <translation>레이어를 나누는 스테이지 수; 계획은 메모리를 가장 많이 쓰는 스테이지를 보여줌</translation>
    </message>
    <message>
        <source>Virtual stages</source>
        <translation>가상 스테이지</translation>
    </message>
    <message>
        <source>Model chunks per pipeline stage: above 1 the schedule is interleaved 1F1B, each GPU holding that many separate groups of layers; the micro-batches (gradient accumulation) must divide by the pipeline stages</source>
        <translation>파이프라인 스테이지마다의 모델 청크 수; 1보다 크면 인터리브드 1F1B 스케줄로, 각 GPU가 서로 떨어진 레이어 묶음을 그만큼 맡음; 마이크로배치 수(그래디언트 누적)가 파이프라인 스테이지 수로 나누어떨어져야 함</translation>
    </message>
    <message>
        <source>Context parallel</source>
        <translation>컨텍스트 병렬</translation>
    </message>
    <message>
        <source>GPUs that split every sequence (torchtitan&apos;s ring attention), each holding sequence / context tokens; needs FSDP2 sharding</source>
        <translation>모든 시퀀스를 나누어 맡는 GPU 수 (torchtitan의 링 어텐션); 각 GPU는 시퀀스 길이 / 컨텍스트 개의 토큰을 맡음; FSDP2 샤딩 필요</translation>
    </message>
    <message>
        <source>Expert parallel</source>
        <translation>전문가 병렬</translation>
    </message>
    <message>
        <source>Data-parallel GPUs that split each mixture-of-experts layer&apos;s routed experts, exchanging tokens by all-to-all (Megatron-LM&apos;s expert parallelism; full fine-tuning with DDP or the distributed optimizer)</source>
        <translation>각 전문가 혼합(MoE) 레이어의 라우팅 전문가를 나누어 가지며 all-to-all로 토큰을 주고받는 데이터 병렬 GPU 수 (Megatron-LM의 전문가 병렬화, DDP 또는 분산 옵티마이저를 쓰는 전체 파인튜닝)</translation>
    </message>
    <message>
        <source>Expert tensor parallel</source>
        <translation>전문가 텐서 병렬</translation>
    </message>
    <message>
        <source>GPUs that split each routed expert&apos;s linears, as tensor parallelism splits a dense MLP (Megatron-LM&apos;s expert tensor parallelism; the default is the tensor-parallel degree, 1 keeps each expert whole)</source>
        <translation>라우팅 전문가 각각의 선형층을 나누어 갖는 GPU 수로, 텐서 병렬이 밀집 MLP를 나누듯 나눕니다(Megatron-LM의 전문가 텐서 병렬. 기본값은 텐서 병렬 차수이고 1이면 전문가를 통째로 둡니다)</translation>
    </message>
    <message>
        <source>Expert capacity factor</source>
        <translation>전문가 용량 계수</translation>
    </message>
    <message>
        <source>Each expert takes at most this many times its even share of token slots and drops the rest (Megatron-LM&apos;s capacity factor; with tensor, pipeline or expert parallelism)</source>
        <translation>전문가마다 토큰 슬롯을 균등 몫의 최대 이 배수만큼 받고 나머지는 버립니다(Megatron-LM의 용량 계수. 텐서, 파이프라인 또는 전문가 병렬과 함께)</translation>
    </message>
    <message>
        <source>Pad experts to capacity</source>
        <translation>전문가 입력을 용량까지 채우기</translation>
    </message>
    <message>
        <source>Every expert&apos;s input is padded to its capacity, so each holds the capacity factor times its even share</source>
        <translation>모든 전문가의 입력을 용량까지 채워서, 전문가마다 균등 몫의 용량 계수배를 갖습니다</translation>
    </message>
    <message>
        <source>Routing imbalance</source>
        <translation>라우팅 불균형</translation>
    </message>
    <message>
        <source>Plan for uneven routing: the busiest expert-parallel GPU receives this many times the even share of token slots (1: balanced; a what-if, not measured)</source>
        <translation>고르지 않은 라우팅을 가정해 계획합니다. 가장 바쁜 전문가 병렬 GPU가 토큰 슬롯을 균등 몫의 이 배수만큼 받습니다(1: 균등. 측정값이 아닌 가정)</translation>
    </message>
    <message>
        <source>Replicate groups (HSDP)</source>
        <translation>복제 그룹 (HSDP)</translation>
    </message>
    <message>
        <source>FSDP2 shards within each group of data-parallel GPUs and the groups all-reduce the sharded gradients (torchtitan&apos;s data_parallel_replicate_degree); 1 shards over all of them</source>
        <translation>데이터 병렬 GPU를 그룹으로 나눠 FSDP2가 그룹 안에서 샤딩하고, 그룹끼리 샤딩된 그래디언트를 all-reduce함 (torchtitan의 data_parallel_replicate_degree); 1이면 전체에 걸쳐 샤딩</translation>
    </message>
    <message>
        <source>AsyncTP</source>
        <translation>AsyncTP (비동기 텐서 병렬)</translation>
    </message>
    <message>
        <source>torchtitan&apos;s asynchronous tensor parallelism: each all-gather and reduce-scatter fused with its matmul over a symmetric-memory workspace outside PyTorch&apos;s allocator (needs tensor parallel, FSDP2 and torch.compile)</source>
        <translation>torchtitan의 비동기 텐서 병렬: 각 all-gather와 reduce-scatter를 해당 행렬곱과 합쳐, PyTorch 할당기 밖의 대칭 메모리 작업 공간에서 실행함 (텐서 병렬, FSDP2, torch.compile 필요)</translation>
    </message>
    <message>
        <source>as tensor parallel</source>
        <extracomment>the expert tensor-parallel field&apos;s value 0</extracomment>
        <translation>텐서 병렬과 같게</translation>
    </message>
    <message>
        <source>dropless</source>
        <extracomment>the capacity factor field&apos;s value 0: no capacity, no token dropped</extracomment>
        <translation>버림 없음</translation>
    </message>
    <message>
        <source>Pipeline schedule</source>
        <translation>파이프라인 스케줄</translation>
    </message>
    <message>
        <source>1F1B: each stage holds the micro-batches still in flight to it (pipeline stages - stage); GPipe: every micro-batch&apos;s forward runs before any backward, so each stage holds all of them</source>
        <translation>1F1B: 각 스테이지는 아직 진행 중인 마이크로배치(파이프라인 스테이지 수 - 스테이지 번호)를 들고 있습니다. GPipe: 모든 마이크로배치의 순전파가 역전파보다 먼저 실행되므로 각 스테이지가 전부를 들고 있습니다.</translation>
    </message>
    <message>
        <source>Pipeline split</source>
        <translation>파이프라인 분할</translation>
    </message>
    <message>
        <source>How the layers are split over the stages: the layers alone (Megatron-LM), or with the embedding and the output counted as one layer each, as torchtitan has split them since 2025 (needs FSDP2 sharding)</source>
        <translation>레이어를 스테이지에 나누는 방식: 레이어만으로 나누거나(Megatron-LM), 2025년부터 torchtitan이 하듯 임베딩과 출력층을 각각 레이어 하나로 세어 나눕니다(FSDP2 샤딩 필요).</translation>
    </message>
    <message>
        <source>Schedule keeps outputs</source>
        <translation>스케줄이 출력 보관</translation>
    </message>
    <message>
        <source>torch&apos;s pipeline schedule returns the last stage&apos;s outputs, so that stage keeps every micro-batch&apos;s logits to the end of the step (torchtitan before October 2025; needs FSDP2 sharding)</source>
        <translation>torch의 파이프라인 스케줄이 마지막 스테이지의 출력을 반환하므로, 그 스테이지는 모든 마이크로배치의 로짓을 스텝 끝까지 들고 있습니다(2025년 10월 이전의 torchtitan; FSDP2 샤딩 필요).</translation>
    </message>
    <message>
        <source>1F1B</source>
        <extracomment>pipeline schedule names, as Megatron-LM and torch call them</extracomment>
        <translation>1F1B</translation>
    </message>
    <message>
        <source>GPipe</source>
        <translation>GPipe</translation>
    </message>
    <message>
        <source>Layers only</source>
        <translation>레이어만</translation>
    </message>
    <message>
        <source>Weighted (torchtitan)</source>
        <extracomment>the embedding and the output each count as a layer</extracomment>
        <translation>가중 (torchtitan)</translation>
    </message>
</context>
<context>
    <name>HubDialog</name>
    <message>
        <source>Open from Hugging Face Hub</source>
        <translation>Hugging Face Hub에서 열기</translation>
    </message>
    <message>
        <source>Reads config.json and the safetensors headers of a model on the Hugging Face Hub; the weights are not downloaded. Gated models need your access token: set HF_TOKEN or run huggingface-cli login. HF_ENDPOINT, HF_HOME and HF_HUB_OFFLINE apply.</source>
        <translation>Hugging Face Hub에 있는 모델의 config.json과 safetensors 헤더를 읽습니다. 가중치는 내려받지 않습니다. 접근이 제한된(gated) 모델에는 액세스 토큰이 필요합니다: HF_TOKEN을 설정하거나 huggingface-cli login을 실행하세요. HF_ENDPOINT, HF_HOME, HF_HUB_OFFLINE 설정을 따릅니다.</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>모델(&amp;M):</translation>
    </message>
    <message>
        <source>&amp;Revision:</source>
        <translation>리비전(&amp;R):</translation>
    </message>
    <message>
        <source>A branch, tag or commit hash; empty means main</source>
        <translation>브랜치, 태그 또는 커밋 해시. 비워 두면 main입니다</translation>
    </message>
    <message>
        <source>&amp;Fetch</source>
        <translation>가져오기(&amp;F)</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>연결하는 중…</translation>
    </message>
    <message>
        <source>Reading %1 (%2 of %3)…</source>
        <extracomment>%1 a file name, %2 and %3 counts of files</extracomment>
        <translation>%1 읽는 중(%3개 중 %2번째)…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>취소하는 중…</translation>
    </message>
    <message>
        <source>%1 at commit %2, from the Hugging Face cache</source>
        <extracomment>%1 a model id, %2 a commit hash (shortened)</extracomment>
        <translation>커밋 %2의 %1, Hugging Face 캐시에서 읽음</translation>
    </message>
    <message>
        <source>%1 at commit %2: %3 files read from the Hub</source>
        <extracomment>%1 a model id, %2 a commit hash (shortened), %3 a count of files</extracomment>
        <translation>커밋 %2의 %1: Hub에서 파일 %3개를 읽음</translation>
    </message>
</context>
<context>
    <name>HubText</name>
    <message>
        <source>%1 is gated: accept its licence at %2, then give Headroom your access token with HF_TOKEN or huggingface-cli login.</source>
        <extracomment>%1 a model id (ORG/NAME), %2 the web page of the model on the Hub</extracomment>
        <translation>%1은(는) 접근이 제한된(gated) 모델입니다: %2에서 라이선스에 동의한 뒤, HF_TOKEN이나 huggingface-cli login으로 Headroom에 액세스 토큰을 알려 주세요.</translation>
    </message>
    <message>
        <source>%1 is gated and the token from %2 has no access to it: accept its licence at %3 with that account.</source>
        <extracomment>%1 a model id, %2 where the token came from (HF_TOKEN or a file), %3 the model&apos;s web page</extracomment>
        <translation>%1은(는) 접근이 제한된(gated) 모델이고, %2의 토큰으로는 접근할 수 없습니다: 그 계정으로 %3에서 라이선스에 동의하세요.</translation>
    </message>
    <message>
        <source>The Hub refused the token from %1 (invalid credentials): set HF_TOKEN to a valid token or run huggingface-cli login again.</source>
        <extracomment>%1 where the token came from (HF_TOKEN or a file)</extracomment>
        <translation>Hub가 %1의 토큰을 거부했습니다(잘못된 자격 증명): HF_TOKEN에 유효한 토큰을 설정하거나 huggingface-cli login을 다시 실행하세요.</translation>
    </message>
    <message>
        <source>The token from %1 gives no access to %2: if it is gated or private, accept its licence or ask for access at %3 with that account.</source>
        <extracomment>%1 where the token came from, %2 a model id, %3 the model&apos;s web page</extracomment>
        <translation>%1의 토큰으로는 %2에 접근할 수 없습니다: 접근이 제한되었거나 비공개인 모델이라면, 그 계정으로 %3에서 라이선스에 동의하거나 접근을 요청하세요.</translation>
    </message>
    <message>
        <source>%1 needs an access token, or does not exist: if it is gated or private, accept its licence at %2, then give Headroom your access token with HF_TOKEN or huggingface-cli login.</source>
        <extracomment>%1 a model id, %2 the model&apos;s web page</extracomment>
        <translation>%1에 접근하려면 액세스 토큰이 필요하거나, 모델이 없습니다: 접근이 제한되었거나 비공개인 모델이라면 %2에서 라이선스에 동의한 뒤, HF_TOKEN이나 huggingface-cli login으로 Headroom에 액세스 토큰을 알려 주세요.</translation>
    </message>
    <message>
        <source>%1 has no revision “%2”.</source>
        <extracomment>%1 a model id, %2 a branch, tag or commit</extracomment>
        <translation>%1에 리비전 “%2”이(가) 없습니다.</translation>
    </message>
    <message>
        <source>There is no model %1 at %2.</source>
        <extracomment>%1 a model id, %2 the Hub&apos;s address</extracomment>
        <translation>%2에 모델 %1이(가) 없습니다.</translation>
    </message>
    <message>
        <source>%1 has no %2 at revision “%3”.</source>
        <extracomment>%1 a model id, %2 a file name, %3 a branch, tag or commit</extracomment>
        <translation>%1의 리비전 “%3”에 %2이(가) 없습니다.</translation>
    </message>
    <message>
        <source>%1 asks to slow down (HTTP 429) for %2 of %3: try again in a minute.</source>
        <extracomment>%1 the Hub&apos;s address, %2 a file name, %3 a model id</extracomment>
        <translation>%1이(가) %3의 %2 요청에 속도를 줄여 달라고 응답했습니다(HTTP 429): 1분 뒤에 다시 시도하세요.</translation>
    </message>
    <message>
        <source>%1 answered HTTP %2 for %3 of %4: the Hub may be down; try again later.</source>
        <extracomment>%1 the Hub&apos;s address, %2 an HTTP status, %3 a file name, %4 a model id</extracomment>
        <translation>%1이(가) %4의 %3 요청에 HTTP %2로 응답했습니다: Hub에 장애가 있을 수 있으니 나중에 다시 시도하세요.</translation>
    </message>
    <message>
        <source>%1 answered HTTP %2 for %3 of %4, which the Hugging Face Hub does not answer.</source>
        <extracomment>%1 the Hub&apos;s address, %2 an HTTP status, %3 a file name, %4 a model id</extracomment>
        <translation>%1이(가) %4의 %3 요청에 HTTP %2로 응답했습니다. Hugging Face Hub는 이런 응답을 보내지 않습니다.</translation>
    </message>
    <message>
        <source>HF_HUB_OFFLINE is set and %1 at revision “%2” is not in the Hugging Face cache %3.</source>
        <extracomment>%1 a model id, %2 a branch, tag or commit, %3 a folder</extracomment>
        <translation>HF_HUB_OFFLINE이 설정되어 있는데 %1의 리비전 “%2”이(가) Hugging Face 캐시 %3에 없습니다.</translation>
    </message>
    <message>
        <source>HF_HUB_OFFLINE is set and the safetensors header of %1 of %2 is not in the Hugging Face cache %3.</source>
        <extracomment>%1 a file name, %2 a model id, %3 a folder</extracomment>
        <translation>HF_HUB_OFFLINE이 설정되어 있는데 %2의 %1 safetensors 헤더가 Hugging Face 캐시 %3에 없습니다.</translation>
    </message>
    <message>
        <source>HF_HUB_OFFLINE is set and %1 of %2 is not in the Hugging Face cache %3.</source>
        <extracomment>%1 a file name, %2 a model id, %3 a folder</extracomment>
        <translation>HF_HUB_OFFLINE이 설정되어 있는데 %2의 %1이(가) Hugging Face 캐시 %3에 없습니다.</translation>
    </message>
    <message>
        <source>%1: the answer for %2 from %3 has no commit hash (X-Repo-Commit): is HF_ENDPOINT a Hugging Face Hub?</source>
        <extracomment>%1 a model id, %2 a file name, %3 the server&apos;s address</extracomment>
        <translation>%1: %3이(가) 보낸 %2 응답에 커밋 해시(X-Repo-Commit)가 없습니다: HF_ENDPOINT가 Hugging Face Hub를 가리키는지 확인하세요.</translation>
    </message>
    <message>
        <source>%1: the answer for %2 from %3 has no usable ETag: is HF_ENDPOINT a Hugging Face Hub?</source>
        <extracomment>%1 a model id, %2 a file name, %3 the server&apos;s address</extracomment>
        <translation>%1: %3이(가) 보낸 %2 응답에 쓸 수 있는 ETag가 없습니다: HF_ENDPOINT가 Hugging Face Hub를 가리키는지 확인하세요.</translation>
    </message>
    <message>
        <source>This build of Headroom has no Hugging Face Hub access (it was built without libcurl): set HF_HUB_OFFLINE=1 to use the files already in the Hugging Face cache, or import a config.json or a model folder.</source>
        <translation>이 Headroom 빌드는 libcurl 없이 빌드되어 Hugging Face Hub에 접속할 수 없습니다: 이미 Hugging Face 캐시에 있는 파일을 쓰려면 HF_HUB_OFFLINE=1을 설정하거나, config.json 또는 모델 폴더를 가져오세요.</translation>
    </message>
    <message>
        <source>%1: the safetensors header of %2 is %3 bytes, over the limit of %4.</source>
        <extracomment>%1 a model id, %2 a file name, %3 and %4 byte counts</extracomment>
        <translation>%1: %2의 safetensors 헤더가 %3바이트로, 제한인 %4바이트를 넘습니다.</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>취소했습니다.</translation>
    </message>
    <message>
        <source>%1: the answer is larger than the limit of %2 bytes.</source>
        <extracomment>%1 a web address, %2 a byte count</extracomment>
        <translation>%1: 응답이 제한인 %2바이트보다 큽니다.</translation>
    </message>
    <message>
        <source>%1: no answer within %2 s (HF_HUB_DOWNLOAD_TIMEOUT sets the limit).</source>
        <extracomment>%1 a web address, %2 seconds</extracomment>
        <translation>%1: %2초 안에 응답이 없습니다(제한은 HF_HUB_DOWNLOAD_TIMEOUT으로 정합니다).</translation>
    </message>
    <message>
        <source>%1: more than %2 redirects (a redirect loop).</source>
        <extracomment>%1 a web address, %2 a count</extracomment>
        <translation>%1: 리디렉션이 %2번을 넘었습니다(리디렉션 순환).</translation>
    </message>
    <message>
        <source>%1: cannot connect (%2); check the network, HF_ENDPOINT and any proxy settings.</source>
        <extracomment>%1 a web address, %2 libcurl&apos;s reason, in English</extracomment>
        <translation>%1: 연결할 수 없습니다(%2). 네트워크, HF_ENDPOINT, 프록시 설정을 확인하세요.</translation>
    </message>
    <message>
        <source>“%1” is not a Hugging Face model id: write ORG/NAME (letters, digits, “-”, “_” and “.”), optionally followed by @ and a branch, tag or commit.</source>
        <extracomment>%1 what the user typed</extracomment>
        <translation>“%1”은(는) Hugging Face 모델 ID가 아닙니다: ORG/NAME 형식(영문자, 숫자, “-”, “_”, “.”)으로 쓰고, 필요하면 뒤에 @와 브랜치, 태그 또는 커밋을 붙이세요.</translation>
    </message>
    <message>
        <source>%1 has no safetensors weights: the parameter count comes from config.json alone.</source>
        <extracomment>%1 a model id</extracomment>
        <translation>%1에는 safetensors 가중치가 없습니다: 파라미터 수는 config.json만으로 계산합니다.</translation>
    </message>
    <message>
        <source>HF_HUB_OFFLINE is set and the safetensors headers of %1 are not in the cache: the parameter count comes from config.json alone.</source>
        <extracomment>%1 a model id</extracomment>
        <translation>HF_HUB_OFFLINE이 설정되어 있고 %1의 safetensors 헤더가 캐시에 없습니다: 파라미터 수는 config.json만으로 계산합니다.</translation>
    </message>
    <message>
        <source>The Hub could not be reached (%1); the cached files of commit %2 are used.</source>
        <extracomment>%1 why (in English), %2 a commit hash</extracomment>
        <translation>Hub에 연결할 수 없어(%1) 커밋 %2의 캐시된 파일을 사용합니다.</translation>
    </message>
    <message>
        <source>The Hugging Face cache could not be written (the plan is not affected): %1</source>
        <extracomment>%1 the file and the reason, in English</extracomment>
        <translation>Hugging Face 캐시에 쓰지 못했습니다(계획에는 영향이 없습니다): %1</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <extracomment>%1 is a one-sentence summary, %2 names what is wrong</extracomment>
        <translation>%1 %2</translation>
    </message>
</context>
<context>
    <name>LadderChart</name>
    <message>
        <source>no change</source>
        <translation>변화 없음</translation>
    </message>
    <message>
        <source>%1
%2</source>
        <translation>%1
%2</translation>
    </message>
    <message>
        <source>Device used %1 (%2)</source>
        <translation>디바이스 사용량 %1 (%2)</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>들어감</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>메모리 부족</translation>
    </message>
    <message>
        <source>Saving of this step: %1</source>
        <translation>이 단계의 절감량: %1</translation>
    </message>
    <message>
        <source>Click to select, then apply it from the table</source>
        <translation>클릭해서 고른 뒤 아래 표에서 적용하세요</translation>
    </message>
</context>
<context>
    <name>LadderModel</name>
    <message>
        <source>no change</source>
        <translation>변화 없음</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>들어감</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>메모리 부족</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>단계</translation>
    </message>
    <message>
        <source>Device used</source>
        <translation>디바이스 사용량</translation>
    </message>
    <message>
        <source>Saving</source>
        <translation>절감</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>판정</translation>
    </message>
    <message>
        <source>%1 (cache)</source>
        <extracomment>a saving (or cost) that comes from the allocator&apos;s cache alone; %1 e.g. &quot;+0.65 GiB&quot;</extracomment>
        <translation>%1 (캐시)</translation>
    </message>
    <message>
        <source>Only the allocator&apos;s cache changes: the peak of allocated memory is the same as the step before.</source>
        <translation>할당자 캐시만 달라집니다. 할당된 메모리의 피크는 이전 단계와 같습니다.</translation>
    </message>
</context>
<context>
    <name>LadderView</name>
    <message>
        <source>Apply this step</source>
        <translation>이 단계 적용</translation>
    </message>
    <message>
        <source>Load the selected step&apos;s configuration into the panel</source>
        <translation>고른 단계의 설정을 패널에 불러옵니다</translation>
    </message>
    <message>
        <source>Start from a naive full fine-tune of this model on this GPU, then add one technique at a time. Each step keeps the ones before it.</source>
        <translation>이 GPU에서 이 모델을 아무 기법 없이 전체 파인튜닝하는 데서 시작해, 기법을 하나씩 더합니다. 각 단계는 앞 단계의 기법을 유지합니다.</translation>
    </message>
</context>
<context>
    <name>LayoutSearchModel</name>
    <message>
        <source>Device used %1 of %2: %3 to spare.</source>
        <extracomment>%1 device used, %2 what the GPU can allocate, %3 the margin</extracomment>
        <translation>디바이스 사용량 %1 / %2: %3 여유.</translation>
    </message>
    <message>
        <source>Reserved memory from the caching allocator simulation.</source>
        <translation>예약 메모리는 캐싱 할당자 시뮬레이션으로 구했습니다.</translation>
    </message>
    <message>
        <source>Reserved memory from the quick estimate.</source>
        <translation>예약 메모리는 빠른 추정치입니다.</translation>
    </message>
    <message>
        <source>between nodes</source>
        <translation>노드 간</translation>
    </message>
    <message>
        <source>inside a node</source>
        <translation>노드 안</translation>
    </message>
    <message>
        <source>The scenario&apos;s layout now</source>
        <translation>시나리오의 현재 레이아웃</translation>
    </message>
    <message>
        <source>Rank by estimated step time</source>
        <translation>추정 스텝 시간 순위</translation>
    </message>
    <message>
        <source>Tensor-parallel degree: GPUs that split each layer&apos;s matrices (inside a node)</source>
        <translation>텐서 병렬 차수: 각 레이어의 행렬을 나누어 맡는 GPU 수 (노드 안)</translation>
    </message>
    <message>
        <source>TP</source>
        <translation>TP</translation>
    </message>
    <message>
        <source>Sequence parallelism: norms and dropout split along the sequence over the tensor-parallel GPUs</source>
        <translation>시퀀스 병렬: 정규화와 드롭아웃을 시퀀스 방향으로 텐서 병렬 GPU들에 나눕니다</translation>
    </message>
    <message>
        <source>SP</source>
        <translation>SP</translation>
    </message>
    <message>
        <source>Pipeline-parallel degree: stages the layers are split into</source>
        <translation>파이프라인 병렬 차수: 레이어를 나눈 스테이지 수</translation>
    </message>
    <message>
        <source>PP</source>
        <translation>PP</translation>
    </message>
    <message>
        <source>Data-parallel degree: model replicas, each with its share of the global batch</source>
        <translation>데이터 병렬 차수: 전역 배치를 나누어 맡는 모델 복제본 수</translation>
    </message>
    <message>
        <source>DP</source>
        <translation>DP</translation>
    </message>
    <message>
        <source>How the data-parallel replicas share the optimizer state, gradients and parameters</source>
        <translation>데이터 병렬 복제본들이 옵티마이저 상태, 그래디언트, 파라미터를 나누어 갖는 방식</translation>
    </message>
    <message>
        <source>Sharding</source>
        <translation>샤딩</translation>
    </message>
    <message>
        <source>Sequences per micro-batch</source>
        <translation>마이크로배치당 시퀀스 수</translation>
    </message>
    <message>
        <source>Micro-batches per step on each replica (gradient accumulation)</source>
        <translation>복제본마다 스텝당 처리하는 마이크로배치 수 (그래디언트 누적)</translation>
    </message>
    <message>
        <source>Accum.</source>
        <translation>누적</translation>
    </message>
    <message>
        <source>Activation (gradient) checkpointing</source>
        <translation>활성값(그래디언트) 체크포인팅</translation>
    </message>
    <message>
        <source>Checkpointing</source>
        <translation>체크포인팅</translation>
    </message>
    <message>
        <source>PyTorch&apos;s max_memory_reserved on the fullest GPU</source>
        <translation>가장 많이 쓰는 GPU의 PyTorch max_memory_reserved</translation>
    </message>
    <message>
        <source>Device memory as nvidia-smi shows it, CUDA context included, on the fullest GPU</source>
        <translation>가장 많이 쓰는 GPU에서 nvidia-smi가 보여 주는 디바이스 메모리 (CUDA 컨텍스트 포함)</translation>
    </message>
    <message>
        <source>Device used
of %1</source>
        <extracomment>column header on two lines: device memory used, over what the GPU can allocate</extracomment>
        <translation>디바이스 사용량
(전체 %1)</translation>
    </message>
    <message>
        <source>Estimated time of one optimizer step (hover a row for its terms)</source>
        <translation>옵티마이저 스텝 하나의 추정 시간 (행 위에 마우스를 올리면 항목별로 보입니다)</translation>
    </message>
    <message>
        <source>Training tokens per second per GPU, by the estimate</source>
        <translation>추정에 따른 GPU당 초당 학습 토큰 수</translation>
    </message>
    <message>
        <source>Tokens/s
per GPU</source>
        <translation>GPU당
토큰/초</translation>
    </message>
    <message>
        <source>Model FLOPs utilization: model FLOPs per second over the GPU&apos;s dense bf16 peak (PaLM&apos;s definition, no recomputation)</source>
        <translation>모델 FLOPs 활용률: 초당 모델 FLOPs를 GPU의 dense bf16 최대 성능으로 나눈 값 (PaLM의 정의, 재계산 제외)</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>Pipeline bubble: the share of the step pipeline stages wait, (pp − 1) / (micro-batches + pp − 1)</source>
        <translation>파이프라인 버블: 스텝 중 파이프라인 스테이지가 기다리는 비율, (pp − 1) / (마이크로배치 수 + pp − 1)</translation>
    </message>
    <message>
        <source>Bubble</source>
        <translation>버블</translation>
    </message>
    <message>
        <source>Micro-
batch</source>
        <translation>마이크로
배치</translation>
    </message>
    <message>
        <source>Peak
reserved</source>
        <translation>최대
예약량</translation>
    </message>
    <message>
        <source>Step
time</source>
        <translation>스텝
시간</translation>
    </message>
    <message>
        <source>%1 × %2 virtual</source>
        <extracomment>pipeline stages × virtual stages (model chunks) per stage, interleaved 1F1B</extracomment>
        <translation>%1 × 가상 %2</translation>
    </message>
    <message>
        <source>%1 pipeline stages, each holding %2 model chunks: interleaved 1F1B, whose bubble is %2 times smaller for %2 times the pipeline sends</source>
        <extracomment>%1 pipeline stages, %2 model chunks on each</extracomment>
        <translation>파이프라인 스테이지 %1개, 각각 모델 청크 %2개: 인터리브 1F1B로 버블은 %2배 작고 파이프라인 전송은 %2배 많음</translation>
    </message>
    <message>
        <source>%1 (%2 × %3)</source>
        <extracomment>data-parallel degree under HSDP: %1 the degree, %2 replicate groups of %3 sharding GPUs</extracomment>
        <translation>%1 (%2 × %3)</translation>
    </message>
    <message>
        <source>HSDP: %1 replicate groups of %2 GPUs; FSDP2 shards within a group, the groups all-reduce the sharded gradients</source>
        <extracomment>%1 replicate groups, %2 GPUs sharding within each</extracomment>
        <translation>HSDP: GPU %2개씩 복제 그룹 %1개; FSDP2가 그룹 안에서 샤딩하고 그룹끼리 샤딩된 그래디언트를 all-reduce함</translation>
    </message>
    <message>
        <source>Computation %1 · tensor-parallel communication %2 (%3) · pipeline sends %4 (%5) · pipeline bubble %6 · data-parallel communication %7 (%8).</source>
        <translation>계산 %1 · 텐서 병렬 통신 %2 (%3) · 파이프라인 전송 %4 (%5) · 파이프라인 버블 %6 · 데이터 병렬 통신 %7 (%8).</translation>
    </message>
    <message>
        <source>Context-parallel communication %1 (%2).</source>
        <extracomment>ring attention&apos;s key/value all-gathers and gradient reduce-scatters: %1 the time, %2 where they run</extracomment>
        <translation>컨텍스트 병렬 통신 %1 (%2).</translation>
    </message>
    <message>
        <source>No overlap is assumed: the step is their sum.</source>
        <translation>겹침이 없다고 가정하므로 스텝 시간은 이들의 합입니다.</translation>
    </message>
    <message>
        <source>Context-parallel degree: GPUs that split each sequence, attention running as a ring (FSDP2 shards over them too)</source>
        <translation>컨텍스트 병렬 차수: 각 시퀀스를 나누어 맡는 GPU 수, 어텐션은 링으로 실행(FSDP2도 이 GPU들에 걸쳐 샤딩)</translation>
    </message>
    <message>
        <source>CP</source>
        <translation>CP</translation>
    </message>
    <message>
        <source>Expert-parallel communication %1 (%2).</source>
        <extracomment>the MoE layers&apos; token all-to-alls and expert tensor-parallel gathers: %1 the time, %2 where the all-to-alls run</extracomment>
        <translation>전문가 병렬 통신 %1 (%2).</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>&amp;File</source>
        <translation>파일(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New (teaching scenario)</source>
        <translation>새로 만들기(&amp;N) (교육용 시나리오)</translation>
    </message>
    <message>
        <source>Llama 3.1 8B, QLoRA, on one RTX 4090: the study notes&apos; exercise</source>
        <translation>RTX 4090 한 장에서 Llama 3.1 8B QLoRA: 스터디 노트의 실습</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>열기(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>최근 파일(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>저장(&amp;S)</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>다른 이름으로 저장(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Export Chart…</source>
        <translation>차트 내보내기(&amp;E)…</translation>
    </message>
    <message>
        <source>Save the chart of the current view as %1</source>
        <translation>현재 보기의 차트를 %1(으)로 저장합니다</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>끝내기(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>보기(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>언어(&amp;L)</translation>
    </message>
    <message>
        <source>Memory &amp;Unit</source>
        <translation>메모리 단위(&amp;U)</translation>
    </message>
    <message>
        <source>GiB (binary, as PyTorch and nvidia-smi count)</source>
        <translation>GiB (2진, PyTorch와 nvidia-smi 기준)</translation>
    </message>
    <message>
        <source>GB (decimal, as datasheets print)</source>
        <translation>GB (10진, 제품 사양서 기준)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>도움말(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Headroom</source>
        <translation>Headroom 정보(&amp;A)</translation>
    </message>
    <message>
        <source>Breakdown</source>
        <translation>메모리 구성</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>타임라인</translation>
    </message>
    <message>
        <source>Ladder</source>
        <translation>기법 사다리</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>스윕</translation>
    </message>
    <message>
        <source>What the GPU holds at the peak, and where each number comes from</source>
        <translation>피크 시 GPU에 무엇이 있는지, 각 숫자가 어디서 나오는지</translation>
    </message>
    <message>
        <source>Memory through one step, event by event</source>
        <translation>한 스텝 동안의 메모리, 이벤트별</translation>
    </message>
    <message>
        <source>Techniques applied one after another, with the saving of each</source>
        <translation>기법을 차례로 적용했을 때 각 기법의 절감량</translation>
    </message>
    <message>
        <source>Memory against micro-batch and sequence length</source>
        <translation>마이크로배치와 시퀀스 길이에 따른 메모리</translation>
    </message>
    <message>
        <source>Cannot open %1. %2</source>
        <translation>%1 파일을 열 수 없습니다. %2</translation>
    </message>
    <message>
        <source>Cannot open scenario</source>
        <translation>시나리오를 열 수 없음</translation>
    </message>
    <message>
        <source>Cannot save %1. %2</source>
        <translation>%1 파일을 저장할 수 없습니다. %2</translation>
    </message>
    <message>
        <source>Open scenario</source>
        <translation>시나리오 열기</translation>
    </message>
    <message>
        <source>Headroom scenarios (*.headroom.json *.json);;All files (*)</source>
        <translation>Headroom 시나리오 (*.headroom.json *.json);;모든 파일 (*)</translation>
    </message>
    <message>
        <source>Cannot save scenario</source>
        <translation>시나리오를 저장할 수 없음</translation>
    </message>
    <message>
        <source>Save scenario</source>
        <translation>시나리오 저장</translation>
    </message>
    <message>
        <source>Headroom scenarios (*.headroom.json)</source>
        <translation>Headroom 시나리오 (*.headroom.json)</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>저장하지 않은 변경 사항</translation>
    </message>
    <message>
        <source>The scenario has been modified. Save the changes?</source>
        <translation>시나리오가 바뀌었습니다. 변경 사항을 저장할까요?</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation>차트 내보내기</translation>
    </message>
    <message>
        <source>Cannot export chart</source>
        <translation>차트를 내보낼 수 없음</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 저장함</translation>
    </message>
    <message>
        <source>Untitled</source>
        <translation>제목 없음</translation>
    </message>
    <message>
        <source>%1[*] — Headroom</source>
        <extracomment>window title: file name, then the application</extracomment>
        <translation>%1[*] — Headroom</translation>
    </message>
    <message>
        <source>About Headroom</source>
        <translation>Headroom 정보</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;Will this training run fit on my GPU, and what should I change so that it does?&lt;/p&gt;&lt;p&gt;Every number comes from one tensor table: each tensor a step creates, with its size, its lifetime and the source of its formula.&lt;/p&gt;&lt;p&gt;GPL-3.0-or-later. Charts by QCustomPlot (GPL-3.0).&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;이 학습이 내 GPU에 올라갈까? 안 된다면 무엇을 바꿔야 할까?&lt;/p&gt;&lt;p&gt;모든 숫자는 하나의 텐서 표에서 나옵니다: 한 스텝이 만드는 모든 텐서와 그 크기, 수명, 공식의 출처.&lt;/p&gt;&lt;p&gt;GPL-3.0-or-later. 차트: QCustomPlot (GPL-3.0).&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Validate</source>
        <translation>검증</translation>
    </message>
    <message>
        <source>Run the step for real in a separate process and compare measured with planned</source>
        <translation>별도 프로세스에서 스텝을 실제로 실행해 측정값을 계획값과 비교합니다</translation>
    </message>
    <message>
        <source>Pinned: %1</source>
        <translation>고정함: %1</translation>
    </message>
    <message>
        <source>Make it fit</source>
        <translation>들어가게 하기</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>비교</translation>
    </message>
    <message>
        <source>The cheapest changes, by their cost in speed, that make the scenario fit the GPU</source>
        <translation>시나리오가 GPU에 들어가게 하는 변경 중 속도 비용이 가장 적은 것</translation>
    </message>
    <message>
        <source>Up to four pinned scenarios side by side</source>
        <translation>고정한 시나리오 최대 네 개를 나란히</translation>
    </message>
    <message>
        <source>&amp;Pin Scenario for Comparison</source>
        <translation>비교용으로 시나리오 고정(&amp;P)</translation>
    </message>
    <message>
        <source>Add the current scenario to the Compare tab (up to four)</source>
        <translation>현재 시나리오를 비교 탭에 추가합니다 (최대 네 개)</translation>
    </message>
    <message>
        <source>Presentation &amp;Mode</source>
        <translation>발표 모드(&amp;M)</translation>
    </message>
    <message>
        <source>Full screen, large type, chart and explanation only; arrow keys step through the ladder, Esc leaves</source>
        <translation>전체 화면, 큰 글자, 차트와 설명만 표시합니다. 화살표 키로 기법 사다리를 넘기고 Esc로 나갑니다</translation>
    </message>
    <message>
        <source>Nothing to pin: the scenario does not plan.</source>
        <translation>고정할 것이 없습니다: 시나리오를 계획할 수 없습니다.</translation>
    </message>
    <message>
        <source>&amp;Teaching</source>
        <translation>학습 예제(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Seed book: polyglot-ko-1.3b experiment…</source>
        <translation>시드 책: polyglot-ko-1.3b 실험(&amp;S)…</translation>
    </message>
    <message>
        <source>The book&apos;s measured GPU memory beside Headroom&apos;s plan of each experiment</source>
        <translation>책이 측정한 GPU 메모리와 각 실험에 대한 Headroom의 계획을 나란히 보여 줍니다</translation>
    </message>
    <message>
        <source>Open from Hugging Face &amp;Hub…</source>
        <translation>Hugging Face Hub에서 열기(&amp;H)…</translation>
    </message>
    <message>
        <source>Plan a model from the Hugging Face Hub: config.json and the safetensors headers, not the weights</source>
        <translation>Hugging Face Hub의 모델로 계획합니다: 가중치가 아니라 config.json과 safetensors 헤더만 읽습니다</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>탐색</translation>
    </message>
    <message>
        <source>The fastest tensor, pipeline and data-parallel layouts of the scenario&apos;s GPUs that fit</source>
        <translation>시나리오의 GPU에 들어가는 텐서·파이프라인·데이터 병렬 레이아웃 중 가장 빠른 것</translation>
    </message>
    <message>
        <source>Stages</source>
        <translation>스테이지</translation>
    </message>
    <message>
        <source>Each pipeline stage&apos;s memory side by side, and which stage is the worst</source>
        <translation>파이프라인 스테이지마다의 메모리를 나란히 보여 주고, 어느 스테이지가 최악인지 표시합니다</translation>
    </message>
</context>
<context>
    <name>MakeItFitView</name>
    <message>
        <source>Undo apply</source>
        <translation>적용 취소</translation>
    </message>
    <message>
        <source>Return the panel to the configuration before the last applied change</source>
        <translation>마지막으로 적용한 변경 전의 설정으로 패널을 되돌립니다</translation>
    </message>
    <message>
        <source>Step-time costs are estimates from published measurements (hover a change for its reason); memory comes from the planner. Changes marked &quot;method&quot; train differently, &quot;task&quot; changes what is trained.</source>
        <translation>스텝 시간 비용은 발표된 측정에 근거한 추정이고(변경 위에 마우스를 올리면 이유가 보입니다), 메모리는 플래너가 계산합니다. &quot;방법&quot; 표시는 학습 방식이 달라지고, &quot;과제&quot; 표시는 학습하는 내용이 달라집니다.</translation>
    </message>
    <message>
        <source>No scenario yet.</source>
        <translation>아직 시나리오가 없습니다.</translation>
    </message>
    <message>
        <source>It already fits, with %1 to spare: nothing to change.</source>
        <translation>이미 들어갑니다(%1 여유): 바꿀 것이 없습니다.</translation>
    </message>
    <message>
        <source>Out of memory by %1, and no combination of up to three changes makes it fit: a larger GPU, more GPUs or a smaller model.</source>
        <translation>%1만큼 메모리가 부족하고, 변경 세 개까지의 어떤 조합으로도 들어가지 않습니다: 더 큰 GPU, 더 많은 GPU 또는 더 작은 모델이 필요합니다.</translation>
    </message>
    <message>
        <source>Out of memory by %1. The cheapest changes that make it fit, by estimated step time:</source>
        <translation>%1만큼 메모리가 부족합니다. 들어가게 하는 변경을 추정 스텝 시간이 적은 순서로 보여 줍니다:</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>적용</translation>
    </message>
    <message>
        <source>Load this configuration into the panel</source>
        <translation>이 설정을 패널에 불러옵니다</translation>
    </message>
</context>
<context>
    <name>MeasurementModel</name>
    <message>
        <source>Peak allocated</source>
        <translation>최대 할당량</translation>
    </message>
    <message>
        <source>Peak reserved</source>
        <translation>최대 예약량</translation>
    </message>
    <message>
        <source>Device used</source>
        <translation>디바이스 사용량</translation>
    </message>
    <message>
        <source>%1 %</source>
        <extracomment>relative error of the plan against the measurement, e.g. &quot;+4.2 %&quot;</extracomment>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>The measurement&apos;s field %1</source>
        <translation>측정 파일의 필드 %1</translation>
    </message>
    <message>
        <source>(planned − measured) / measured: positive means Headroom predicted more</source>
        <translation>(계획 − 측정) / 측정: 양수이면 Headroom이 더 많이 예측한 것입니다</translation>
    </message>
    <message>
        <source>Counter</source>
        <translation>카운터</translation>
    </message>
    <message>
        <source>Planned</source>
        <translation>계획</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>측정</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>오차</translation>
    </message>
</context>
<context>
    <name>MeasurementPanel</name>
    <message>
        <source>Cannot import %1. %2</source>
        <extracomment>%1 is a file name, %2 the reason</extracomment>
        <translation>%1 파일을 가져올 수 없습니다. %2</translation>
    </message>
    <message>
        <source>Import measurement</source>
        <translation>측정값 가져오기</translation>
    </message>
    <message>
        <source>Headroom measurements (*.json);;All files (*)</source>
        <translation>Headroom 측정 파일 (*.json);;모든 파일 (*)</translation>
    </message>
    <message>
        <source>The file does not say which scenario the run was made from.</source>
        <translation>이 파일에는 실행에 쓰인 시나리오가 없습니다.</translation>
    </message>
    <message>
        <source>The run&apos;s scenario does not plan. %1</source>
        <translation>실행한 시나리오를 계획할 수 없습니다. %1</translation>
    </message>
    <message>
        <source>measured on an unnamed GPU</source>
        <translation>이름 없는 GPU에서 측정</translation>
    </message>
    <message>
        <source>measured on %1</source>
        <translation>%1에서 측정</translation>
    </message>
    <message numerus="yes">
        <source>%n step(s)</source>
        <translation>
            <numerusform>%n단계</numerusform>
        </translation>
    </message>
    <message>
        <source>Planned for the scenario the run was made from (in the file), on %1.</source>
        <translation>실행에 쓰인 시나리오(파일에 포함)로 %1에 대해 계획했습니다.</translation>
    </message>
    <message>
        <source>The file names no scenario: planned for the current one, on %1.</source>
        <translation>파일에 시나리오가 없어 현재 시나리오로 %1에 대해 계획했습니다.</translation>
    </message>
    <message>
        <source>Device used is the whole device as %1 read it, other processes included; the plan counts this process only.</source>
        <translation>디바이스 사용량은 %1(으)로 읽은 디바이스 전체이며 다른 프로세스도 포함합니다. 계획은 이 프로세스만 셉니다.</translation>
    </message>
    <message>
        <source>an unnamed source</source>
        <translation>이름 없는 출처</translation>
    </message>
    <message>
        <source>Measured on your stack</source>
        <translation>내 환경에서 측정한 값</translation>
    </message>
    <message>
        <source>Ran the exported Hugging Face script, or the Headroom callback in your own loop, on your GPU? Import the headroom.measurement/1 file it wrote to put PyTorch&apos;s counters beside the plan.</source>
        <translation>내보낸 Hugging Face 스크립트나, 직접 작성한 학습 루프에 넣은 Headroom 콜백을 GPU에서 실행했나요? 그때 기록된 headroom.measurement/1 파일을 가져오면 PyTorch 카운터를 계획과 나란히 볼 수 있습니다.</translation>
    </message>
    <message>
        <source>Import measurement…</source>
        <translation>측정값 가져오기…</translation>
    </message>
    <message>
        <source>Open the run&apos;s scenario</source>
        <translation>실행한 시나리오 열기</translation>
    </message>
    <message>
        <source>Load the scenario the measured run was made from, as File ▸ Open would</source>
        <translation>측정한 실행에 쓰인 시나리오를 파일 ▸ 열기처럼 불러옵니다</translation>
    </message>
    <message>
        <source>run on the CPU</source>
        <translation>CPU에서 실행</translation>
    </message>
    <message>
        <source>A run on the CPU (the exported script&apos;s smoke test) has no CUDA memory counters, so there is nothing to put beside the plan: run it on the GPU.</source>
        <translation>CPU에서 실행한 경우(내보낸 스크립트의 스모크 테스트)에는 CUDA 메모리 카운터가 없어 계획과 나란히 놓을 값이 없습니다. GPU에서 실행하세요.</translation>
    </message>
</context>
<context>
    <name>MemoryUnits</name>
    <message>
        <source>%1 bytes</source>
        <translation>%1바이트</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>Head</source>
        <translation>헤드</translation>
    </message>
    <message>
        <source>What the model is trained for: BERT&apos;s masked-LM head predicts every token over the vocabulary; a sequence classifier (BertForSequenceClassification) predicts one label per sequence</source>
        <translation>모델을 무엇에 맞춰 학습하는지: BERT의 마스크 언어 모델 헤드는 모든 토큰을 어휘 전체에 대해 예측하고, 시퀀스 분류기(BertForSequenceClassification)는 시퀀스마다 레이블 하나를 예측합니다</translation>
    </message>
    <message>
        <source>Labels</source>
        <translation>레이블</translation>
    </message>
    <message>
        <source>Classes of the classifier (num_labels); 1 is regression</source>
        <translation>분류기의 클래스 수(num_labels); 1이면 회귀</translation>
    </message>
    <message>
        <source> · classifier over %1 labels</source>
        <translation> · 레이블 %1개 분류기</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <extracomment>model list entry: name and parameter count</extracomment>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Import config.json…</source>
        <translation>config.json 가져오기…</translation>
    </message>
    <message>
        <source>Read the architecture from a Hugging Face config.json</source>
        <translation>Hugging Face config.json에서 아키텍처를 읽습니다</translation>
    </message>
    <message>
        <source>Import model folder…</source>
        <translation>모델 폴더 가져오기…</translation>
    </message>
    <message>
        <source>Read config.json and the safetensors headers of a downloaded model (the weights are not loaded)</source>
        <translation>내려받은 모델의 config.json과 safetensors 헤더를 읽습니다(가중치는 읽지 않습니다)</translation>
    </message>
    <message>
        <source>Type any part of a name to search the %1 preset models</source>
        <translation>이름의 일부를 입력해 프리셋 모델 %1개를 검색하세요</translation>
    </message>
    <message>
        <source>%1 (from config.json)</source>
        <translation>%1 (config.json에서)</translation>
    </message>
    <message>
        <source>%1 (from a model folder)</source>
        <translation>%1 (모델 폴더에서)</translation>
    </message>
    <message>
        <source>%1 (scaled from a size, approximate)</source>
        <translation>%1 (크기로 추정, 근사)</translation>
    </message>
    <message>
        <source>%1 (custom)</source>
        <translation>%1 (사용자 정의)</translation>
    </message>
    <message>
        <source>%1 layers · hidden %2 · %3 heads (%4 KV) · vocabulary %5</source>
        <translation>레이어 %1 · 히든 %2 · 헤드 %3 (KV %4) · 어휘 %5</translation>
    </message>
    <message>
        <source> · %1 experts, %2 per token</source>
        <translation> · 전문가 %1개, 토큰당 %2개</translation>
    </message>
    <message>
        <source>Import config.json</source>
        <translation>config.json 가져오기</translation>
    </message>
    <message>
        <source>Hugging Face config (config.json *.json);;All files (*)</source>
        <translation>Hugging Face 설정 (config.json *.json);;모든 파일 (*)</translation>
    </message>
    <message>
        <source>Cannot import %1</source>
        <translation>%1을(를) 가져올 수 없음</translation>
    </message>
    <message>
        <source>Import model folder</source>
        <translation>모델 폴더 가져오기</translation>
    </message>
    <message>
        <source>%1 (from the Hugging Face Hub)</source>
        <translation>%1 (Hugging Face Hub에서)</translation>
    </message>
    <message>
        <source>%1 layers · hidden %2 · %3 heads (latent %4) · vocabulary %5</source>
        <extracomment>multi-head latent attention (DeepSeek-V3): %4 the key/value latent&apos;s width</extracomment>
        <translation>레이어 %1 · 히든 %2 · 헤드 %3 (잠재 %4) · 어휘 %5</translation>
    </message>
    <message>
        <source> · dense first layers: %1</source>
        <extracomment>DeepSeek-V3&apos;s first_k_dense_replace: the first layers run a dense MLP</extracomment>
        <translation> · 앞쪽 밀집(dense) 레이어: %1</translation>
    </message>
    <message>
        <source> · dense layers: %1 of %2</source>
        <extracomment>Qwen3-MoE&apos;s mlp_only_layers, Llama 4 Maverick&apos;s interleaved layers: %1 of the %2 layers run a dense MLP</extracomment>
        <translation> · 밀집 층: %2개 중 %1개</translation>
    </message>
</context>
<context>
    <name>PeftGroup</name>
    <message>
        <source>Adapters (PEFT)</source>
        <translation>어댑터 (PEFT)</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>방법</translation>
    </message>
    <message>
        <source>Rank r</source>
        <translation>랭크 r</translation>
    </message>
    <message>
        <source>Alpha</source>
        <translation>알파</translation>
    </message>
    <message>
        <source>Dropout</source>
        <translation>드롭아웃</translation>
    </message>
    <message>
        <source>Target modules</source>
        <translation>대상 모듈</translation>
    </message>
    <message>
        <source>LoRA rank: each adapted matrix W (out × in) gains A (r × in) and B (out × r)</source>
        <translation>LoRA 랭크: 적응하는 행렬 W (out × in)마다 A (r × in)와 B (out × r)가 붙습니다</translation>
    </message>
    <message>
        <source>Scaling alpha / r: changes no memory, kept for the exported configuration</source>
        <translation>스케일 alpha / r: 메모리에는 영향이 없고, 내보내는 설정에 쓰입니다</translation>
    </message>
    <message>
        <source>LoRA dropout saves a mask per adapted input in training</source>
        <translation>LoRA 드롭아웃은 학습 중 적응 입력마다 마스크를 저장합니다</translation>
    </message>
    <message>
        <source>Low-rank adapters over frozen 16-bit weights</source>
        <translation>고정된 16비트 가중치 위의 저랭크 어댑터</translation>
    </message>
    <message>
        <source>Low-rank adapters over a frozen 4-bit (NF4) base</source>
        <translation>고정된 4비트(NF4) 베이스 위의 저랭크 어댑터</translation>
    </message>
    <message>
        <source>PEFT default for this architecture</source>
        <translation>이 아키텍처의 PEFT 기본값</translation>
    </message>
    <message>
        <source>All linear layers</source>
        <translation>모든 선형 레이어</translation>
    </message>
    <message>
        <source>PEFT&apos;s &quot;all-linear&quot;: every linear layer except the output head</source>
        <translation>PEFT의 &quot;all-linear&quot;: 출력 헤드를 뺀 모든 선형 레이어</translation>
    </message>
    <message>
        <source>Chosen modules</source>
        <translation>직접 고른 모듈</translation>
    </message>
    <message>
        <source>PEFT adapts %1 on this architecture when no modules are given.</source>
        <translation>모듈을 지정하지 않으면 PEFT는 이 아키텍처에서 %1에 적용합니다.</translation>
    </message>
    <message>
        <source>Adapted in every layer: %1.</source>
        <translation>레이어마다 적용: %1.</translation>
    </message>
    <message>
        <source>No module chosen: PEFT&apos;s default for the architecture applies.</source>
        <translation>고른 모듈이 없습니다: 이 아키텍처의 PEFT 기본값이 적용됩니다.</translation>
    </message>
    <message>
        <source>Modules chosen: %1.</source>
        <translation>고른 모듈: %1개.</translation>
    </message>
    <message>
        <source>Not in this model: %1.</source>
        <translation>이 모델에 없음: %1.</translation>
    </message>
    <message>
        <source>Train small adapters instead of every weight: far fewer gradients and optimizer states</source>
        <translation>모든 가중치 대신 작은 어댑터를 학습합니다: 그래디언트와 옵티마이저 상태가 훨씬 적습니다</translation>
    </message>
    <message>
        <source>Which linear layers get adapters: more targets, more trainable parameters</source>
        <translation>어댑터를 붙일 선형 레이어: 대상이 많을수록 학습 파라미터가 늘어납니다</translation>
    </message>
</context>
<context>
    <name>PlanDocument</name>
    <message>
        <source>Edit scenario</source>
        <translation>시나리오 편집</translation>
    </message>
</context>
<context>
    <name>PresentationView</name>
    <message>
        <source>← → step through the technique ladder · Esc leaves presentation mode</source>
        <translation>← → 기법 사다리 넘기기 · Esc 발표 모드 나가기</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>들어감</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>메모리 부족</translation>
    </message>
    <message>
        <source>Your scenario: %1, %2</source>
        <translation>내 시나리오: %1, %2</translation>
    </message>
    <message>
        <source>Step %1 of %2: %3 — %4, %5</source>
        <translation>%2단계 중 %1단계: %3 — %4, %5</translation>
    </message>
</context>
<context>
    <name>RecentFiles</name>
    <message>
        <source>No recent files</source>
        <translation>최근 파일 없음</translation>
    </message>
    <message>
        <source>Clear list</source>
        <translation>목록 지우기</translation>
    </message>
</context>
<context>
    <name>ReportWriter</name>
    <message>
        <source>Model</source>
        <translation>모델</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>모드</translation>
    </message>
    <message>
        <source>Runtime profile</source>
        <translation>런타임 프로파일</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>Capacity</source>
        <translation>용량</translation>
    </message>
    <message>
        <source>Sharding</source>
        <translation>샤딩</translation>
    </message>
    <message>
        <source>, CPU offload</source>
        <translation>, CPU 오프로드</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>정밀도</translation>
    </message>
    <message>
        <source>Weight quantization</source>
        <translation>가중치 양자화</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>옵티마이저</translation>
    </message>
    <message>
        <source>, rank %1, alpha %2</source>
        <translation>, 랭크 %1, alpha %2</translation>
    </message>
    <message>
        <source>Adapters (PEFT)</source>
        <translation>어댑터 (PEFT)</translation>
    </message>
    <message>
        <source>Trainable parameters</source>
        <translation>학습 파라미터</translation>
    </message>
    <message>
        <source>Micro-batch × sequence length</source>
        <translation>마이크로배치 × 시퀀스 길이</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>그래디언트 누적</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>그래디언트 체크포인팅</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>어텐션</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>배치</translation>
    </message>
    <message>
        <source>Prompt + new tokens</source>
        <translation>프롬프트 + 새 토큰</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>가중치</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <source>Scenario</source>
        <translation>시나리오</translation>
    </message>
    <message>
        <source>Fits, %1 to spare</source>
        <translation>들어갑니다, %1 여유</translation>
    </message>
    <message>
        <source>Out of memory by %1</source>
        <translation>메모리 부족 (OOM), %1 초과</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>판정</translation>
    </message>
    <message>
        <source>Peak allocated</source>
        <translation>최대 할당량</translation>
    </message>
    <message>
        <source>Peak reserved</source>
        <translation>최대 예약량</translation>
    </message>
    <message>
        <source>Device used (nvidia-smi)</source>
        <translation>디바이스 사용량 (nvidia-smi)</translation>
    </message>
    <message>
        <source>Capacity the plan uses</source>
        <translation>계획이 쓰는 용량</translation>
    </message>
    <message>
        <source>Peak at</source>
        <translation>최대 시점</translation>
    </message>
    <message>
        <source>Assumptions</source>
        <translation>가정</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>범주</translation>
    </message>
    <message>
        <source>At the peak</source>
        <translation>최대 시점 값</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>비율</translation>
    </message>
    <message>
        <source>Where the numbers come from</source>
        <translation>숫자의 출처</translation>
    </message>
    <message>
        <source>Each tensor a training step creates, with its size for this scenario, how many instances are alive at the peak, and the formula&apos;s source.</source>
        <translation>학습 한 스텝이 만드는 텐서마다, 이 시나리오에서의 크기, 최대 시점에 살아 있는 인스턴스 수, 공식의 출처를 보입니다.</translation>
    </message>
    <message>
        <source>Formula and source</source>
        <translation>공식과 출처</translation>
    </message>
    <message>
        <source>Recommendations</source>
        <translation>권장 사항</translation>
    </message>
    <message>
        <source>Technique ladder</source>
        <translation>기법 사다리</translation>
    </message>
    <message>
        <source>From a naive full fine-tune, one technique after another, with the memory each saves.</source>
        <translation>단순한 전체 파인튜닝에서 시작해 기법을 하나씩 더하며 각 기법이 줄이는 메모리를 보입니다.</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>단계</translation>
    </message>
    <message>
        <source>Device used</source>
        <translation>디바이스 사용량</translation>
    </message>
    <message>
        <source>Saving</source>
        <translation>절감</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>들어감</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>예</translation>
    </message>
    <message>
        <source>no</source>
        <translation>아니요</translation>
    </message>
    <message>
        <source>Fit search</source>
        <translation>맞춤 탐색</translation>
    </message>
    <message>
        <source>not even 1 fits</source>
        <translation>1도 들어가지 않음</translation>
    </message>
    <message>
        <source>%1 (device used %2)</source>
        <translation>%1 (디바이스 사용량 %2)</translation>
    </message>
    <message>
        <source>Now</source>
        <translation>현재</translation>
    </message>
    <message>
        <source>Largest that fits</source>
        <translation>들어가는 최댓값</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>마이크로배치</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>시퀀스 길이</translation>
    </message>
    <message>
        <source>Largest model per technique</source>
        <translation>기법별 최대 모델</translation>
    </message>
    <message>
        <source>The largest catalog model, and the largest Llama-like model by size, that fit %1 with these batch settings.</source>
        <translation>이 배치 설정으로 %1에 들어가는 가장 큰 카탈로그 모델과, 크기로 본 가장 큰 Llama 계열 모델입니다.</translation>
    </message>
    <message>
        <source>Techniques</source>
        <translation>기법</translation>
    </message>
    <message>
        <source>Largest catalog model</source>
        <translation>가장 큰 카탈로그 모델</translation>
    </message>
    <message>
        <source>Largest by size</source>
        <translation>크기로 본 최대</translation>
    </message>
    <message>
        <source>Headroom memory plan</source>
        <translation>Headroom 메모리 계획</translation>
    </message>
    <message>
        <source>Breakdown at the peak</source>
        <translation>최대 시점의 메모리 구성</translation>
    </message>
    <message>
        <source>Memory through one step</source>
        <translation>한 스텝 동안의 메모리</translation>
    </message>
    <message>
        <source>Memory by category at each event of the step; the dashed line is the peak.</source>
        <translation>스텝의 이벤트마다 범주별 메모리. 점선이 최대 시점입니다.</translation>
    </message>
    <message>
        <source>Could not draw the report.</source>
        <translation>보고서를 그릴 수 없습니다.</translation>
    </message>
    <message>
        <source>Cannot write %1. %2</source>
        <translation>%1을(를) 쓸 수 없습니다. %2</translation>
    </message>
</context>
<context>
    <name>ScenarioPanel</name>
    <message>
        <source>Model</source>
        <translation>모델</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>실행</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>모드</translation>
    </message>
    <message>
        <source>Runtime profile</source>
        <translation>런타임 프로파일</translation>
    </message>
    <message>
        <source>The framework whose memory behaviour the plan predicts</source>
        <translation>계획이 메모리 동작을 예측하는 프레임워크</translation>
    </message>
    <message>
        <source>Precision and optimizer</source>
        <translation>정밀도와 옵티마이저</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>정밀도</translation>
    </message>
    <message>
        <source>How weights, gradients and activations are stored during training</source>
        <translation>학습 중 가중치, 그래디언트, 활성값을 저장하는 방식</translation>
    </message>
    <message>
        <source>Weight quantization</source>
        <translation>가중치 양자화</translation>
    </message>
    <message>
        <source>Storage of the frozen base weights (bitsandbytes); needs LoRA or QLoRA</source>
        <translation>고정된 베이스 가중치의 저장 형식 (bitsandbytes). LoRA나 QLoRA가 필요합니다</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>옵티마이저</translation>
    </message>
    <message>
        <source>GaLore rank</source>
        <translation>GaLore 랭크</translation>
    </message>
    <message>
        <source>Rank of GaLore&apos;s gradient projection</source>
        <translation>GaLore 그래디언트 투영의 랭크</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>배치</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>마이크로배치</translation>
    </message>
    <message>
        <source>Sequences per forward/backward pass on one GPU</source>
        <translation>GPU 한 장에서 순전파/역전파 한 번에 처리하는 시퀀스 수</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>시퀀스 길이</translation>
    </message>
    <message>
        <source>Tokens per sequence</source>
        <translation>시퀀스당 토큰 수</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>그래디언트 누적</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step: a larger effective batch at the memory of one micro-batch</source>
        <translation>옵티마이저 스텝당 마이크로배치 수: 마이크로배치 하나의 메모리로 더 큰 유효 배치를 얻습니다</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>활성값</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>그래디언트 체크포인팅</translation>
    </message>
    <message>
        <source>Keep only each checkpointed layer&apos;s input and recompute the rest in backward</source>
        <translation>체크포인트 레이어의 입력만 남기고 나머지는 역전파에서 재계산합니다</translation>
    </message>
    <message>
        <source>Checkpoint every k</source>
        <translation>체크포인트 간격 k</translation>
    </message>
    <message>
        <source>Checkpoint one layer in k (layers 0, k, 2k…)</source>
        <translation>k개 레이어 중 하나를 체크포인트합니다 (레이어 0, k, 2k…)</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>어텐션</translation>
    </message>
    <message>
        <source>Eager attention materialises the seq × seq scores; SDPA and FlashAttention do not</source>
        <translation>Eager 어텐션은 seq × seq 점수 행렬을 메모리에 만들고, SDPA와 FlashAttention은 만들지 않습니다</translation>
    </message>
    <message>
        <source>Chunked cross-entropy</source>
        <translation>청크 단위 교차 엔트로피</translation>
    </message>
    <message>
        <source>Compute the loss in chunks so the fp32 logits never exist all at once (torchtune)</source>
        <translation>손실을 청크로 나눠 계산해 fp32 로짓이 한꺼번에 존재하지 않게 합니다 (torchtune)</translation>
    </message>
    <message>
        <source>Loss chunks</source>
        <translation>손실 청크 수</translation>
    </message>
    <message>
        <source>Optimizer step in backward</source>
        <translation>역전파 중 옵티마이저 스텝</translation>
    </message>
    <message>
        <source>Update each parameter in its backward hook and free its gradient at once</source>
        <translation>역전파 훅에서 파라미터마다 바로 갱신하고 그래디언트를 즉시 해제합니다</translation>
    </message>
    <message>
        <source>Offload activations to CPU</source>
        <translation>활성값 CPU 오프로드</translation>
    </message>
    <message>
        <source>Training loop</source>
        <translation>학습 루프</translation>
    </message>
    <message>
        <source>Hugging Face Trainer keeps only the loss. A hand-written loop that keeps `outputs` holds the logits (and the KV cache) through backward and the optimizer step, until the next forward returns</source>
        <translation>Hugging Face Trainer는 손실만 남깁니다. `outputs`를 변수로 유지하는 직접 작성한 루프는 로짓(과 KV 캐시)을 역전파와 옵티마이저 스텝 동안, 다음 순전파가 끝날 때까지 유지합니다</translation>
    </message>
    <message>
        <source>use_cache in training</source>
        <translation>학습 중 use_cache</translation>
    </message>
    <message>
        <source>transformers returns every layer&apos;s keys and values when use_cache is on (most configs&apos; default), unless gradient checkpointing turns it off</source>
        <translation>use_cache가 켜져 있으면(대부분 config의 기본값) transformers는 모든 레이어의 키와 값을 반환합니다. 그래디언트 체크포인팅을 쓰면 꺼집니다</translation>
    </message>
    <message>
        <source>Saved activations move to CPU memory (torch.autograd.graph.save_on_cpu)</source>
        <translation>저장된 활성값을 CPU 메모리로 옮깁니다 (torch.autograd.graph.save_on_cpu)</translation>
    </message>
    <message>
        <source>Inference</source>
        <translation>추론</translation>
    </message>
    <message>
        <source>Sequences generated together</source>
        <translation>함께 생성하는 시퀀스 수</translation>
    </message>
    <message>
        <source>Prompt tokens</source>
        <translation>프롬프트 토큰</translation>
    </message>
    <message>
        <source>New tokens</source>
        <translation>생성 토큰</translation>
    </message>
    <message>
        <source>Tokens generated after the prompt</source>
        <translation>프롬프트 뒤에 생성하는 토큰 수</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>가중치</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <source>Data type of the cached keys and values</source>
        <translation>캐시되는 키와 값의 데이터 타입</translation>
    </message>
    <message>
        <source>bf16</source>
        <translation>bf16</translation>
    </message>
    <message>
        <source>fp16</source>
        <translation>fp16</translation>
    </message>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>Effective batch = %1 × %2 × %3 GPUs = %4 sequences (%5 tokens) per optimizer step</source>
        <extracomment>micro-batch × accumulation × GPUs = sequences (tokens) per optimizer step</extracomment>
        <translation>유효 배치 = %1 × %2 × GPU %3개 = 옵티마이저 스텝당 시퀀스 %4개 (토큰 %5개)</translation>
    </message>
    <message>
        <source>Plan one training step, or generation: training holds gradients and optimizer states, generation a KV cache</source>
        <translation>학습 한 스텝 또는 생성을 계획합니다: 학습은 그래디언트와 옵티마이저 상태를, 생성은 KV 캐시를 둡니다</translation>
    </message>
    <message>
        <source>The optimizer&apos;s states per trainable parameter: AdamW keeps two, 8-bit AdamW two bytes, SGD none</source>
        <translation>학습 파라미터당 옵티마이저 상태: AdamW는 두 개, 8비트 AdamW는 2바이트, SGD는 없음</translation>
    </message>
    <message>
        <source>More chunks, smaller fp32 logits at a time</source>
        <translation>청크가 많을수록 한 번에 만드는 fp32 로짓이 작아집니다</translation>
    </message>
    <message>
        <source>Tokens read before generating: the prefill&apos;s activations and the first KV cache</source>
        <translation>생성 전에 읽는 토큰: 프리필의 활성값과 첫 KV 캐시를 정합니다</translation>
    </message>
    <message>
        <source>Data type of the served weights: bytes per parameter</source>
        <translation>서빙하는 가중치의 데이터 타입: 파라미터당 바이트 수</translation>
    </message>
    <message>
        <source>Serve bitsandbytes 8-bit or 4-bit weights: fewer bytes per parameter</source>
        <translation>bitsandbytes 8비트 또는 4비트 가중치로 서빙: 파라미터당 바이트가 줄어듭니다</translation>
    </message>
    <message>
        <source>Eager attention materialises the scores; SDPA and FlashAttention do not</source>
        <translation>eager 어텐션은 점수 행렬을 만들고, SDPA와 FlashAttention은 만들지 않습니다</translation>
    </message>
    <message>
        <source>Effective batch = %1 × %2 × %3 data-parallel replicas = %4 sequences (%5 tokens) per optimizer step</source>
        <extracomment>micro-batch × accumulation × data-parallel replicas = sequences (tokens) per optimizer step</extracomment>
        <translation>유효 배치 = %1 × %2 × 데이터 병렬 복제본 %3개 = 옵티마이저 스텝당 시퀀스 %4개 (토큰 %5개)</translation>
    </message>
    <message>
        <source>torch.compile each layer</source>
        <translation>레이어마다 torch.compile</translation>
    </message>
    <message>
        <source>Compile each decoder layer as torchtitan does: the layer keeps fewer tensors and its recompute fuses the norms and the activation (Llama layout, with full or selective-op checkpointing)</source>
        <translation>torchtitan처럼 디코더 레이어마다 컴파일합니다. 레이어가 보관하는 텐서가 줄고, 재계산에서 정규화와 활성화 함수가 하나의 커널로 합쳐집니다 (Llama 구조, 전체 또는 selective-op 체크포인팅)</translation>
    </message>
    <message>
        <source>Float8 all-gather</source>
        <translation>Float8 all-gather</translation>
    </message>
    <message>
        <source>With fp8-mixed under FSDP2: gather the Float8 linears&apos; weights in 1 byte instead of bf16 (torchtitan&apos;s enable_fsdp_float8_all_gather)</source>
        <translation>FSDP2에서 fp8-mixed일 때: Float8 선형층의 가중치를 bf16 대신 1바이트로 모음 (torchtitan의 enable_fsdp_float8_all_gather)</translation>
    </message>
    <message>
        <source>torch.compile the loss</source>
        <translation>손실 함수에 torch.compile</translation>
    </message>
    <message>
        <source>Compile the cross-entropy as torchtitan does since mid-2025: it keeps the 16-bit logits instead of fp32 log-probabilities (language-model heads, without tensor parallelism or chunked loss)</source>
        <translation>torchtitan이 2025년 중반부터 하듯 교차 엔트로피를 컴파일: fp32 로그 확률 대신 16비트 로짓을 보관 (언어 모델 헤드, 텐서 병렬이나 청크 손실 없이)</translation>
    </message>
</context>
<context>
    <name>Screenshot</name>
    <message>
        <source>unknown language &quot;%1&quot;: use %2</source>
        <translation>알 수 없는 언어 &quot;%1&quot;: %2 중 하나를 쓰세요</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>%1을(를) 읽을 수 없습니다: %2</translation>
    </message>
    <message>
        <source>cannot write %1</source>
        <translation>%1을(를) 쓸 수 없습니다</translation>
    </message>
    <message>
        <source>unknown view &quot;%1&quot;: use breakdown, stages, timeline, ladder, sweep, validate, fit, compare or search</source>
        <translation>알 수 없는 보기 &quot;%1&quot;: breakdown, stages, timeline, ladder, sweep, validate, fit, compare, search 중 하나를 쓰세요</translation>
    </message>
</context>
<context>
    <name>SearchText</name>
    <message>
        <source>%1 ms</source>
        <extracomment>a duration in milliseconds</extracomment>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <extracomment>a duration in seconds</extracomment>
        <translation>%1초</translation>
    </message>
    <message>
        <source>off</source>
        <translation>끔</translation>
    </message>
    <message>
        <source>every layer</source>
        <translation>모든 레이어</translation>
    </message>
    <message>
        <source>every k-th layer</source>
        <translation>k번째 레이어마다</translation>
    </message>
    <message>
        <source>selective (ops)</source>
        <translation>선택적 (연산)</translation>
    </message>
    <message>
        <source>computation</source>
        <translation>계산</translation>
    </message>
    <message>
        <source>tensor-parallel communication</source>
        <translation>텐서 병렬 통신</translation>
    </message>
    <message>
        <source>pipeline sends</source>
        <translation>파이프라인 전송</translation>
    </message>
    <message>
        <source>pipeline bubble</source>
        <translation>파이프라인 버블</translation>
    </message>
    <message>
        <source>data-parallel communication</source>
        <translation>데이터 병렬 통신</translation>
    </message>
    <message>
        <source>%1 with SP</source>
        <translation>%1 (SP)</translation>
    </message>
    <message>
        <source>%1 %2 against %3</source>
        <extracomment>one setting in which two layouts differ: %1 the setting, %2 the first layout&apos;s value, %3 the second&apos;s</extracomment>
        <translation>%1 %2 대 %3</translation>
    </message>
    <message>
        <source>on</source>
        <translation>켬</translation>
    </message>
    <message>
        <source>tp</source>
        <translation>tp</translation>
    </message>
    <message>
        <source>sequence parallelism</source>
        <translation>시퀀스 병렬</translation>
    </message>
    <message>
        <source>pp</source>
        <translation>pp</translation>
    </message>
    <message>
        <source>dp</source>
        <translation>dp</translation>
    </message>
    <message>
        <source>sharding</source>
        <translation>샤딩</translation>
    </message>
    <message>
        <source>micro-batch</source>
        <translation>마이크로배치</translation>
    </message>
    <message>
        <source>accumulation</source>
        <translation>누적</translation>
    </message>
    <message>
        <source>checkpointing</source>
        <translation>체크포인팅</translation>
    </message>
    <message>
        <source>#1 and #2 (%1) take the same estimated step time, %2; #1 comes first because it uses less device memory (%3 against %4).</source>
        <translation>#1과 #2(%1)는 추정 스텝 시간이 %2로 같습니다. #1이 디바이스 메모리를 덜 쓰므로(%3 대 %4) 앞에 옵니다.</translation>
    </message>
    <message>
        <source>#1 is %1 (%2) faster per step than #2 (%3).</source>
        <translation>#1은 #2(%3)보다 스텝당 %1(%2) 빠릅니다.</translation>
    </message>
    <message>
        <source>Its %1 takes %2 less (%3 against %4).</source>
        <translation>%1에 드는 시간이 %2 짧습니다(%3 대 %4).</translation>
    </message>
    <message>
        <source>Its %1 takes %2 less (%3 against %4), more than making up for its %5, which takes %6 longer.</source>
        <translation>%1에 드는 시간이 %2 짧아서(%3 대 %4), %6 더 걸리는 %5을(를) 메우고도 남습니다.</translation>
    </message>
    <message>
        <source>Evaluated: %1 layouts</source>
        <translation>평가한 레이아웃: %1개</translation>
    </message>
    <message>
        <source>refused by the planner: %1</source>
        <translation>플래너가 거부: %1</translation>
    </message>
    <message>
        <source>fit (quick estimate): %1</source>
        <translation>들어감 (빠른 추정): %1</translation>
    </message>
    <message>
        <source>tp × pp shapes refused: %1</source>
        <translation>거부된 tp × pp 형태: %1</translation>
    </message>
    <message>
        <source>re-planned with the allocator simulation: %1</source>
        <translation>할당자 시뮬레이션으로 다시 계획: %1</translation>
    </message>
    <message>
        <source>of those, too large with the simulation: %1</source>
        <translation>그중 시뮬레이션에서 넘침: %1</translation>
    </message>
    <message>
        <source>%1 GPUs per node (assumed: the scenario does not say)</source>
        <translation>노드당 GPU %1개 (가정: 시나리오에 없음)</translation>
    </message>
    <message>
        <source>%1 GPUs per node</source>
        <translation>노드당 GPU %1개</translation>
    </message>
    <message>
        <source>Assumptions: %1; matrix products at %2 of the %3 TFLOPS dense bf16 peak; communication not overlapped with computation (so the step times are upper bounds); links per GPU %4 GB/s inside a node, %5 GB/s between nodes.</source>
        <extracomment>%1 GPUs per node, %2 a percentage, %3 TFLOPS, %4 and %5 GB/s</extracomment>
        <translation>가정: %1; 행렬곱은 dense bf16 최대 성능 %3 TFLOPS의 %2로 실행; 통신은 계산과 겹치지 않음 (그래서 스텝 시간은 상한); GPU당 링크는 노드 안 %4 GB/s, 노드 간 %5 GB/s.</translation>
    </message>
    <message>
        <source>Link speeds: an assumption for this GPU (PCIe 4.0 x16 inside a node, 100 Gb/s Ethernet between nodes).</source>
        <translation>링크 속도: 이 GPU에 대한 가정입니다 (노드 안 PCIe 4.0 x16, 노드 간 100 Gb/s 이더넷).</translation>
    </message>
    <message>
        <source>Link speeds: %1.</source>
        <translation>링크 속도: %1.</translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>Search cancelled before a layout that fits was found (%1 evaluated).</source>
        <translation>들어가는 레이아웃을 찾기 전에 탐색을 취소했습니다 (%1개 평가).</translation>
    </message>
    <message>
        <source>No layout of %1 fits.</source>
        <translation>%1의 어떤 레이아웃도 들어가지 않습니다.</translation>
    </message>
    <message>
        <source>The closest, %1, uses %2 of %3.</source>
        <translation>가장 가까운 레이아웃(%1)은 %3 중 %2를 씁니다.</translation>
    </message>
    <message>
        <source>The fastest layouts of %1 for a global batch of %2 sequences of %3 tokens, by estimated step time.</source>
        <extracomment>%1 GPUs, %2 sequences, %3 tokens</extracomment>
        <translation>%3 토큰 시퀀스 %2개로 된 전역 배치에서 %1의 가장 빠른 레이아웃 (추정 스텝 시간 순).</translation>
    </message>
    <message>
        <source>The scenario sets no global batch: micro-batch × accumulation × GPUs.</source>
        <translation>시나리오에 전역 배치가 없어서 마이크로배치 × 누적 × GPU 수로 정했습니다.</translation>
    </message>
    <message>
        <source>Search cancelled: the best of the %1 layouts evaluated before it stopped.</source>
        <translation>탐색을 취소했습니다: 멈추기 전까지 평가한 레이아웃 %1개 중 가장 좋은 것들입니다.</translation>
    </message>
    <message>
        <source>Most frequent refusal: %1</source>
        <translation>가장 흔한 거부 사유: %1</translation>
    </message>
    <message>
        <source>%1 (interleaved, vpp %2)</source>
        <extracomment>pipeline stages interleaved 1F1B: %1 stages, %2 virtual stages (model chunks) each</extracomment>
        <translation>%1 (인터리브, vpp %2)</translation>
    </message>
    <message>
        <source>virtual stages</source>
        <translation>가상 스테이지</translation>
    </message>
    <message>
        <source>%1 (HSDP, %2 replicas)</source>
        <extracomment>a parallel layout: tensor × pipeline × data-parallel degrees, sharding, micro-batch × accumulation, checkpointing the data-parallel degree under HSDP: %1 the degree, %2 replicate groups</extracomment>
        <translation>%1 (HSDP, 복제 %2개)</translation>
    </message>
    <message>
        <source>replicate groups</source>
        <translation>복제 그룹</translation>
    </message>
    <message>
        <source>context-parallel communication</source>
        <translation>컨텍스트 병렬 통신</translation>
    </message>
    <message>
        <source>cp %1 × dp %2</source>
        <extracomment>context parallelism in a layout, before the data-parallel degree: %1 the cp degree, %2 the dp degree</extracomment>
        <translation>cp %1 × dp %2</translation>
    </message>
    <message>
        <source>dp %1</source>
        <translation>dp %1</translation>
    </message>
    <message>
        <source>tp %1 × pp %2 × %3, %4, micro-batch %5 × %6, checkpointing %7</source>
        <extracomment>a parallel layout: %1 tensor, %2 pipeline degrees, %3 &quot;dp N&quot; or &quot;cp N × dp N&quot;, sharding, micro-batch × accumulation, checkpointing</extracomment>
        <translation>tp %1 × pp %2 × %3, %4, 마이크로배치 %5 × %6, 체크포인팅 %7</translation>
    </message>
    <message>
        <source>cp</source>
        <translation>cp</translation>
    </message>
    <message>
        <source>expert-parallel communication</source>
        <translation>전문가 병렬 통신</translation>
    </message>
    <message>
        <source>%1 (ep %2)</source>
        <extracomment>expert parallelism in a layout, after the data-parallel degree: %1 &quot;dp N&quot;, %2 the ep degree</extracomment>
        <translation>%1 (ep %2)</translation>
    </message>
    <message>
        <source>ep</source>
        <translation>ep</translation>
    </message>
    <message>
        <source>%1 (expert TP %2)</source>
        <extracomment>expert tensor parallelism in a layout when it differs from tp: %1 the layout so far, %2 the etp degree</extracomment>
        <translation>%1 (전문가 TP %2)</translation>
    </message>
    <message>
        <source>expert TP</source>
        <translation>전문가 TP</translation>
    </message>
</context>
<context>
    <name>SearchView</name>
    <message>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <source>Stop the search and show the best of the layouts evaluated so far</source>
        <translation>탐색을 멈추고 지금까지 평가한 레이아웃 중 가장 좋은 것들을 보여 줍니다</translation>
    </message>
    <message>
        <source>Search again</source>
        <translation>다시 탐색</translation>
    </message>
    <message>
        <source>Apply selected layout</source>
        <translation>선택한 레이아웃 적용</translation>
    </message>
    <message>
        <source>Set the scenario&apos;s tensor, pipeline and data parallelism, sharding, micro-batch, accumulation and checkpointing to the selected row (Edit ▸ Undo takes it back)</source>
        <translation>시나리오의 텐서·파이프라인·데이터 병렬, 샤딩, 마이크로배치, 누적, 체크포인팅을 선택한 행으로 바꿉니다 (편집 ▸ 실행 취소로 되돌립니다)</translation>
    </message>
    <message>
        <source>%v of %m tensor × pipeline shapes</source>
        <extracomment>progress of the layout search: %v shapes done of %m</extracomment>
        <translation>텐서 × 파이프라인 형태 %m개 중 %v개</translation>
    </message>
    <message>
        <source>Searching the layouts of %1 × %2…</source>
        <translation>%1 × %2의 레이아웃을 탐색하는 중…</translation>
    </message>
    <message>
        <source>With one GPU only the micro-batch and checkpointing vary: set more GPUs in the panel to search tensor, pipeline and data parallelism.</source>
        <translation>GPU가 하나면 마이크로배치와 체크포인팅만 달라집니다. 텐서·파이프라인·데이터 병렬을 탐색하려면 패널에서 GPU 수를 늘리세요.</translation>
    </message>
    <message>
        <source>Only one layout fits.</source>
        <translation>들어가는 레이아웃이 하나뿐입니다.</translation>
    </message>
    <message>
        <source>The scenario&apos;s layout now is #%1, in bold.</source>
        <translation>시나리오의 현재 레이아웃은 #%1이며 굵게 표시했습니다.</translation>
    </message>
</context>
<context>
    <name>Session</name>
    <message>
        <source>The settings file %1 could not be read.</source>
        <translation>설정 파일 %1을(를) 읽을 수 없습니다.</translation>
    </message>
    <message>
        <source>The saved view &quot;%1&quot; is unknown.</source>
        <translation>저장된 보기 &quot;%1&quot;을(를) 알 수 없습니다.</translation>
    </message>
    <message>
        <source>The last scenario could not be read: %1</source>
        <translation>마지막 시나리오를 읽을 수 없습니다: %1</translation>
    </message>
    <message>
        <source>The last session was not fully restored; defaults are used instead. %1</source>
        <extracomment>%1 lists what could not be restored</extracomment>
        <translation>마지막 세션을 모두 복원하지 못해 기본값을 씁니다. %1</translation>
    </message>
    <message>
        <source>The autosaved changes could not be read and were set aside as %1. %2</source>
        <translation>자동 저장된 변경 사항을 읽을 수 없어 %1(으)로 옮겨 두었습니다. %2</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>저장하지 않은 변경 사항</translation>
    </message>
    <message>
        <source>Headroom did not exit cleanly. Restore unsaved changes from %1?</source>
        <translation>Headroom이 정상적으로 종료되지 않았습니다. %1의 저장하지 않은 변경 사항을 복원할까요?</translation>
    </message>
</context>
<context>
    <name>StagesChart</name>
    <message>
        <source>Stage %1</source>
        <translation>스테이지 %1</translation>
    </message>
    <message>
        <source>1 layer</source>
        <extracomment>under &quot;Stage 2&quot;: its decoder layers, e.g. &quot;20 layers&quot;, or its model chunks&apos; layers, &quot;10 + 10 layers&quot;</extracomment>
        <translation>레이어 1</translation>
    </message>
    <message>
        <source>%1 layers</source>
        <translation>레이어 %1</translation>
    </message>
    <message>
        <source>worst
%1</source>
        <extracomment>above the bar of the stage with the most device memory used: &quot;worst&quot;, then its device used</extracomment>
        <translation>최악
%1</translation>
    </message>
    <message>
        <source>the worst stage: the verdict and the other views show its plan</source>
        <translation>최악 스테이지: 판정과 다른 보기는 이 스테이지의 계획을 보여 줍니다</translation>
    </message>
    <message>
        <source>Peak allocated %1 · peak reserved %2</source>
        <translation>최대 할당량 %1 · 최대 예약량 %2</translation>
    </message>
    <message>
        <source>Device used %1 of %2</source>
        <translation>디바이스 사용량 %1 / %2</translation>
    </message>
    <message>
        <source>Allocator cache and CUDA context, up to device used</source>
        <translation>할당자 캐시와 CUDA 컨텍스트 (디바이스 사용량까지)</translation>
    </message>
</context>
<context>
    <name>StagesModel</name>
    <message>
        <source>%1 (worst)</source>
        <extracomment>a pipeline stage&apos;s number in the Stages table, on the stage the other views show</extracomment>
        <translation>%1 (최악)</translation>
    </message>
    <message>
        <source>The stage with the most device memory used: the verdict and the other views show its plan</source>
        <translation>디바이스 메모리를 가장 많이 쓰는 스테이지입니다. 판정과 다른 보기는 이 스테이지의 계획을 보여 줍니다</translation>
    </message>
    <message>
        <source>Pipeline stage (pipeline-parallel rank)</source>
        <translation>파이프라인 스테이지 (파이프라인 병렬 랭크)</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>스테이지</translation>
    </message>
    <message>
        <source>Decoder layers of each of the stage&apos;s model chunks (virtual stages)</source>
        <translation>스테이지의 모델 청크(가상 스테이지)마다의 디코더 레이어 수</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>레이어</translation>
    </message>
    <message>
        <source>Decoder layers on this stage</source>
        <translation>이 스테이지의 디코더 레이어 수</translation>
    </message>
    <message>
        <source>Chunk micro-batches whose activations the stage holds at once (one chunk&apos;s activations of one micro-batch each; interleaved 1F1B)</source>
        <translation>스테이지가 한꺼번에 활성값을 보관하는 청크 마이크로배치 수 (각각 마이크로배치 하나에 대한 모델 청크 하나의 활성값; 인터리브드 1F1B)</translation>
    </message>
    <message>
        <source>Chunk micro-batches in flight</source>
        <translation>진행 중인 청크 마이크로배치</translation>
    </message>
    <message>
        <source>Micro-batches whose activations the stage holds at once (1F1B: pp − stage, at most the step&apos;s micro-batches; GPipe: all of them)</source>
        <translation>스테이지가 한꺼번에 활성값을 보관하는 마이크로배치 수 (1F1B: pp − 스테이지 번호, 스텝의 마이크로배치 수 이하; GPipe: 전부)</translation>
    </message>
    <message>
        <source>Micro-batches in flight</source>
        <translation>진행 중인 마이크로배치</translation>
    </message>
    <message>
        <source>torch.cuda.max_memory_allocated on this stage</source>
        <translation>이 스테이지의 torch.cuda.max_memory_allocated</translation>
    </message>
    <message>
        <source>Peak allocated</source>
        <translation>최대 할당량</translation>
    </message>
    <message>
        <source>torch.cuda.max_memory_reserved on this stage</source>
        <translation>이 스테이지의 torch.cuda.max_memory_reserved</translation>
    </message>
    <message>
        <source>Peak reserved</source>
        <translation>최대 예약량</translation>
    </message>
    <message>
        <source>Peak reserved plus what lives outside the allocator (the CUDA context), as nvidia-smi shows it</source>
        <translation>최대 예약량에 할당자 밖의 메모리(CUDA 컨텍스트)를 더한 값으로, nvidia-smi가 보여 주는 값입니다</translation>
    </message>
    <message>
        <source>Device used</source>
        <translation>디바이스 사용량</translation>
    </message>
    <message>
        <source>The GPU&apos;s capacity minus device used; negative when the stage does not fit</source>
        <translation>GPU 용량에서 디바이스 사용량을 뺀 값입니다. 스테이지가 들어가지 않으면 음수입니다</translation>
    </message>
    <message>
        <source>Headroom</source>
        <translation>여유</translation>
    </message>
</context>
<context>
    <name>StagesView</name>
    <message>
        <source>Layout %1. The verdict, the breakdown and the timeline show the worst stage, stage %2: the one with the most device memory used.</source>
        <extracomment>%1 the layout, e.g. &quot;tp 8 · pp 4 · dp 2&quot;; %2 the number of the worst stage</extracomment>
        <translation>레이아웃 %1. 판정, 메모리 구성, 타임라인은 디바이스 메모리를 가장 많이 쓰는 최악 스테이지, 곧 스테이지 %2를 보여 줍니다.</translation>
    </message>
    <message>
        <source>Every GPU holds the same plan: the Breakdown tab shows it. The pipeline stages appear here side by side when the layout splits the model: set Tensor parallel, Pipeline stages, Context parallel or Expert parallel above 1 in the GPU group of the panel.</source>
        <translation>모든 GPU가 같은 계획을 가지며, 메모리 구성 탭이 그 계획을 보여 줍니다. 레이아웃이 모델을 나누면 여기에 파이프라인 스테이지가 나란히 나타납니다: 패널의 GPU 그룹에서 텐서 병렬, 파이프라인 스테이지, 컨텍스트 병렬 또는 전문가 병렬을 1보다 크게 설정하세요.</translation>
    </message>
</context>
<context>
    <name>SuggestionModel</name>
    <message>
        <source>method</source>
        <translation>방법</translation>
    </message>
    <message>
        <source>task</source>
        <translation>과제</translation>
    </message>
    <message>
        <source>about the same</source>
        <translation>거의 같음</translation>
    </message>
    <message>
        <source>%1 % slower</source>
        <translation>%1 % 느림</translation>
    </message>
    <message>
        <source>%1 % faster</source>
        <translation>%1 % 빠름</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>변경</translation>
    </message>
    <message>
        <source>Device used</source>
        <translation>디바이스 사용량</translation>
    </message>
    <message>
        <source>Margin</source>
        <translation>여유</translation>
    </message>
    <message>
        <source>Step time (est.)</source>
        <translation>스텝 시간 (추정)</translation>
    </message>
    <message>
        <source>flash attention</source>
        <translation>FlashAttention</translation>
    </message>
    <message>
        <source>gradient checkpointing (every layer)</source>
        <translation>그래디언트 체크포인팅 (모든 레이어)</translation>
    </message>
    <message>
        <source>gradient checkpointing (one layer in %1)</source>
        <translation>그래디언트 체크포인팅 (레이어 %1개 중 하나)</translation>
    </message>
    <message>
        <source>chunked cross-entropy</source>
        <translation>청크 단위 교차 엔트로피</translation>
    </message>
    <message>
        <source>bf16 mixed precision instead of fp32</source>
        <translation>fp32 대신 bf16 혼합 정밀도</translation>
    </message>
    <message>
        <source>fp16 mixed precision instead of fp32</source>
        <translation>fp32 대신 fp16 혼합 정밀도</translation>
    </message>
    <message>
        <source>pure bf16 weights and optimizer</source>
        <translation>순수 bf16 가중치와 옵티마이저</translation>
    </message>
    <message>
        <source>8-bit AdamW</source>
        <translation>8비트 AdamW</translation>
    </message>
    <message>
        <source>paged 8-bit AdamW</source>
        <translation>페이지드 8비트 AdamW</translation>
    </message>
    <message>
        <source>LoRA (r16, all linear layers)</source>
        <translation>LoRA (r16, 모든 선형 레이어)</translation>
    </message>
    <message>
        <source>QLoRA (NF4 base, r16, all linear layers)</source>
        <translation>QLoRA (NF4 베이스, r16, 모든 선형 레이어)</translation>
    </message>
    <message>
        <source>micro-batch %1 with more accumulation</source>
        <translation>마이크로배치 %1, 누적 늘림</translation>
    </message>
    <message>
        <source>ZeRO-2 sharding</source>
        <translation>ZeRO-2 샤딩</translation>
    </message>
    <message>
        <source>ZeRO-3 / FSDP full sharding</source>
        <translation>ZeRO-3 / FSDP 전체 샤딩</translation>
    </message>
    <message>
        <source>CPU offload of the optimizer</source>
        <translation>옵티마이저 CPU 오프로드</translation>
    </message>
    <message>
        <source>activation offload to CPU</source>
        <translation>활성값 CPU 오프로드</translation>
    </message>
    <message>
        <source>sequence length %1</source>
        <translation>시퀀스 길이 %1</translation>
    </message>
    <message>
        <source>fp8 KV cache</source>
        <translation>fp8 KV 캐시</translation>
    </message>
    <message>
        <source>int8 weights (LLM.int8)</source>
        <translation>int8 가중치 (LLM.int8)</translation>
    </message>
    <message>
        <source>NF4 weights</source>
        <translation>NF4 가중치</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>배치 %1</translation>
    </message>
    <message>
        <source>prompt length %1</source>
        <translation>프롬프트 길이 %1</translation>
    </message>
    <message>
        <source>Computes attention in tiles without storing the score matrix; faster as well (Dao et al. 2022).</source>
        <translation>점수 행렬을 저장하지 않고 타일 단위로 어텐션을 계산합니다. 속도도 더 빠릅니다 (Dao 외 2022).</translation>
    </message>
    <message>
        <source>Keeps only each layer&apos;s input and recomputes the rest in backward: about one extra forward pass, +33% step time.</source>
        <translation>레이어마다 입력만 남기고 나머지는 역전파에서 재계산합니다: 순전파가 한 번 더 들어 스텝 시간이 약 33% 늘어납니다.</translation>
    </message>
    <message>
        <source>Recomputes some layers in backward: part of the saving of full checkpointing for part of its cost.</source>
        <translation>일부 레이어만 역전파에서 재계산합니다: 전체 체크포인팅 절감의 일부를 비용의 일부로 얻습니다.</translation>
    </message>
    <message>
        <source>Upcasts and differentiates the logits chunk by chunk instead of all at once; the loss is a small part of the step.</source>
        <translation>로짓을 한꺼번에가 아니라 청크별로 업캐스트하고 미분합니다. 손실 계산은 스텝의 작은 부분입니다.</translation>
    </message>
    <message>
        <source>Activations in 16 bits (half of fp32) and tensor-core matmuls: much faster.</source>
        <translation>활성값을 16비트(fp32의 절반)로 두고 텐서 코어로 행렬곱을 합니다: 훨씬 빠릅니다.</translation>
    </message>
    <message>
        <source>No fp32 master weights: parameters, gradients and optimizer states in bf16. Small updates can round away.</source>
        <translation>fp32 마스터 가중치 없이 파라미터, 그래디언트, 옵티마이저 상태를 bf16으로 둡니다. 작은 업데이트는 반올림되어 사라질 수 있습니다.</translation>
    </message>
    <message>
        <source>Optimizer moments stored in 8 bits with block-wise scales instead of 32 bits.</source>
        <translation>옵티마이저 모멘트를 32비트 대신 블록별 스케일과 함께 8비트로 저장합니다.</translation>
    </message>
    <message>
        <source>8-bit moments in unified memory that pages to the CPU under pressure instead of failing.</source>
        <translation>8비트 모멘트를 통합 메모리에 두어, 메모리가 모자라면 실패하는 대신 CPU로 페이징합니다.</translation>
    </message>
    <message>
        <source>Trains small adapters over frozen weights: no gradients or optimizer states for the base weights.</source>
        <translation>고정된 가중치 위에서 작은 어댑터만 학습합니다: 베이스 가중치의 그래디언트와 옵티마이저 상태가 없습니다.</translation>
    </message>
    <message>
        <source>LoRA over a 4-bit base: the frozen weights take about a quarter of bf16; dequantizing them slows every matmul.</source>
        <translation>4비트 베이스 위의 LoRA: 고정 가중치가 bf16의 약 4분의 1이 되지만, 역양자화 때문에 모든 행렬곱이 느려집니다.</translation>
    </message>
    <message>
        <source>Fewer sequences at once, more accumulation steps: the same effective batch with smaller activations; smaller matmuls use the GPU less well.</source>
        <translation>한 번에 처리하는 시퀀스를 줄이고 누적 스텝을 늘립니다: 유효 배치는 같고 활성값은 작아지지만, 작은 행렬곱은 GPU를 덜 효율적으로 씁니다.</translation>
    </message>
    <message>
        <source>Each GPU keeps its share of the gradients and optimizer states; the same communication as data parallelism.</source>
        <translation>GPU마다 그래디언트와 옵티마이저 상태의 자기 몫만 둡니다. 통신량은 데이터 병렬과 같습니다.</translation>
    </message>
    <message>
        <source>Parameters sharded too and gathered layer by layer: 1.5× the communication of data parallelism.</source>
        <translation>파라미터까지 나누고 레이어마다 모읍니다: 통신량이 데이터 병렬의 1.5배입니다.</translation>
    </message>
    <message>
        <source>Optimizer states (and the step) on the CPU: gradients and parameters cross PCIe every step.</source>
        <translation>옵티마이저 상태(와 스텝)를 CPU에 둡니다: 매 스텝 그래디언트와 파라미터가 PCIe를 오갑니다.</translation>
    </message>
    <message>
        <source>Saved activations wait in CPU memory until backward: PCIe transfers every step.</source>
        <translation>저장된 활성값이 역전파까지 CPU 메모리에서 기다립니다: 매 스텝 PCIe 전송이 생깁니다.</translation>
    </message>
    <message>
        <source>Shorter sequences change what the model learns (or reads): a last resort.</source>
        <translation>시퀀스를 줄이면 모델이 배우는(또는 읽는) 내용이 달라집니다: 최후의 수단입니다.</translation>
    </message>
    <message>
        <source>Keys and values cached in 8 bits: half of bf16, converted inside the attention kernel.</source>
        <translation>키와 값을 8비트로 캐시합니다: bf16의 절반이며 어텐션 커널 안에서 변환합니다.</translation>
    </message>
    <message>
        <source>Weights in 8 bits with outliers in 16: half of bf16; slower matmuls.</source>
        <translation>가중치는 8비트, 이상치는 16비트로 둡니다: bf16의 절반이지만 행렬곱이 느려집니다.</translation>
    </message>
    <message>
        <source>Weights in 4 bits: about a quarter of bf16; dequantized in every matmul.</source>
        <translation>가중치를 4비트로 둡니다: bf16의 약 4분의 1이며 행렬곱마다 역양자화합니다.</translation>
    </message>
    <message>
        <source>Fewer sequences at once: a smaller KV cache and activations, fewer sequences per second.</source>
        <translation>한 번에 처리하는 시퀀스를 줄입니다: KV 캐시와 활성값은 작아지고 초당 처리 시퀀스도 줄어듭니다.</translation>
    </message>
</context>
<context>
    <name>SweepView</name>
    <message>
        <source>Micro-batch (sequences per GPU)</source>
        <translation>마이크로배치 (GPU당 시퀀스)</translation>
    </message>
    <message>
        <source>Batch (sequences)</source>
        <translation>배치 (시퀀스)</translation>
    </message>
    <message>
        <source>Sequence length (tokens)</source>
        <translation>시퀀스 길이 (토큰)</translation>
    </message>
    <message>
        <source>Prompt length (tokens)</source>
        <translation>프롬프트 길이 (토큰)</translation>
    </message>
    <message>
        <source>Device used (nvidia-smi)</source>
        <translation>디바이스 사용량 (nvidia-smi)</translation>
    </message>
    <message>
        <source>Nothing to sweep</source>
        <translation>스윕할 값이 없습니다</translation>
    </message>
    <message>
        <source>now: %1</source>
        <translation>현재: %1</translation>
    </message>
    <message>
        <source>largest that fits: %1</source>
        <translation>들어가는 최댓값: %1</translation>
    </message>
    <message>
        <source>even 1 does not fit</source>
        <translation>1도 들어가지 않습니다</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 = %2&lt;/b&gt;&lt;br&gt;Device used %3 (%4)</source>
        <translation>&lt;b&gt;%1 = %2&lt;/b&gt;&lt;br&gt;디바이스 사용량 %3 (%4)</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>들어감</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>메모리 부족</translation>
    </message>
    <message>
        <source>Fit map: micro-batch</source>
        <translation>적합 지도: 마이크로배치</translation>
    </message>
    <message>
        <source>Computing…</source>
        <translation>계산 중…</translation>
    </message>
    <message>
        <source>Computing sweeps and fit map… %p%</source>
        <translation>스윕과 적합 지도 계산 중… %p%</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 × %2 tokens&lt;/b&gt;&lt;br&gt;Device used %3 (%4)</source>
        <translation>&lt;b&gt;%1 × 토큰 %2개&lt;/b&gt;&lt;br&gt;디바이스 사용량 %3 (%4)</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 × %2 tokens&lt;/b&gt;&lt;br&gt;Device used about %3, estimated (%4)</source>
        <translation>&lt;b&gt;%1 × 토큰 %2개&lt;/b&gt;&lt;br&gt;디바이스 사용량 약 %3, 추정치 (%4)</translation>
    </message>
</context>
<context>
    <name>TeachingDialog</name>
    <message>
        <source>Seed book: polyglot-ko-1.3b experiment</source>
        <translation>시드 책: polyglot-ko-1.3b 실험</translation>
    </message>
    <message>
        <source>The book behind Headroom&apos;s study notes (허정준, chapter 5) trains EleutherAI/polyglot-ko-1.3b in fp16 with plain AdamW on a Colab T4, 256-token random sequences, and prints torch.cuda.memory_allocated() in GiB right after the first optimizer step. Each row plans the same experiment and reads the same counter. Headroom has no pure-fp16 mode with fp16 optimizer states; the scenarios use bf16, which has the same bytes. Sources: docs/validation/seed-book.md.</source>
        <translation>Headroom 학습 노트의 바탕이 된 책(허정준, 5장)은 Colab T4에서 EleutherAI/polyglot-ko-1.3b를 fp16과 일반 AdamW로, 256토큰 무작위 시퀀스로 학습하고, 첫 옵티마이저 스텝 직후의 torch.cuda.memory_allocated()를 GiB로 출력합니다. 각 행은 같은 실험을 계획하고 같은 카운터를 읽습니다. Headroom에는 옵티마이저 상태까지 fp16인 순수 fp16 모드가 없으므로 바이트 수가 같은 bf16을 씁니다. 출처: docs/validation/seed-book.md.</translation>
    </message>
    <message>
        <source>&amp;Load Scenario</source>
        <translation>시나리오 불러오기(&amp;L)</translation>
    </message>
    <message>
        <source>Open the selected experiment&apos;s scenario in the main window</source>
        <translation>선택한 실험의 시나리오를 메인 창에서 엽니다</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>닫기(&amp;C)</translation>
    </message>
</context>
<context>
    <name>TeachingModel</name>
    <message>
        <source>allocated after loading</source>
        <translation>로드 후 할당량</translation>
    </message>
    <message>
        <source>allocated after the optimizer step</source>
        <translation>옵티마이저 스텝 후 할당량</translation>
    </message>
    <message>
        <source>optimizer states</source>
        <translation>옵티마이저 상태</translation>
    </message>
    <message>
        <source>gradients</source>
        <translation>그레이디언트</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1 GiB (%2%)</source>
        <translation>%1 GiB (%2%)</translation>
    </message>
    <message>
        <source>Printed on line %1 of the seed transcript (%2); the book&apos;s code: %3. The book prints memory_allocated() / 1024³ and labels it &quot;GB&quot;: these are GiB.</source>
        <translation>시드 기록(%2)의 %1번째 줄에 출력된 값입니다. 책의 코드: %3. 책은 memory_allocated() / 1024³를 &quot;GB&quot;로 표시하므로 실제 단위는 GiB입니다.</translation>
    </message>
    <message>
        <source>Headroom&apos;s plan of this experiment&apos;s scenario, read on the same counter, plus the book&apos;s own reading before the experiment (%1 GiB).</source>
        <translation>이 실험 시나리오에 대한 Headroom의 계획을 같은 카운터로 읽은 값에, 실험 전 책이 읽은 값(%1 GiB)을 더했습니다.</translation>
    </message>
    <message>
        <source>Headroom minus the book.</source>
        <translation>Headroom 값에서 책의 값을 뺀 차이입니다.</translation>
    </message>
    <message>
        <source>Experiment</source>
        <translation>실험</translation>
    </message>
    <message>
        <source>Counter</source>
        <translation>카운터</translation>
    </message>
    <message>
        <source>Book</source>
        <translation>책</translation>
    </message>
    <message>
        <source>Headroom</source>
        <translation>Headroom</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>오차</translation>
    </message>
    <message>
        <source>Why they differ</source>
        <translation>차이의 이유</translation>
    </message>
</context>
<context>
    <name>TensorRowModel</name>
    <message>
        <source>%1 → %2</source>
        <extracomment>a tensor&apos;s lifetime: allocated at the first event, freed after the second</extracomment>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>텐서</translation>
    </message>
    <message>
        <source>Per instance</source>
        <translation>인스턴스당</translation>
    </message>
    <message>
        <source>At peak</source>
        <translation>피크 시</translation>
    </message>
    <message>
        <source>Lifetime</source>
        <translation>수명</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <extracomment>live instances at the peak / all instances of the row</extracomment>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>a single instance</source>
        <translation>인스턴스 1개</translation>
    </message>
    <message>
        <source>%1 instances, %2</source>
        <extracomment>e.g. &quot;32 instances, each layer&quot;</extracomment>
        <translation>인스턴스 %1개, %2</translation>
    </message>
    <message>
        <source>Live</source>
        <translation>살아 있음</translation>
    </message>
    <message>
        <source>%1 instances, %2, %3</source>
        <extracomment>%1 instances, %2 a set of layers (&quot;kept layers&quot;), %3 &quot;dense layers&quot; or &quot;MoE layers&quot;</extracomment>
        <translation>인스턴스 %1개, %2, %3</translation>
    </message>
    <message>
        <source>dense layers</source>
        <translation>밀집(dense) 레이어</translation>
    </message>
    <message>
        <source>MoE layers</source>
        <translation>MoE 레이어</translation>
    </message>
    <message>
        <source>end of %1 → %2</source>
        <extracomment>a tensor&apos;s lifetime: allocated when the first event ends, freed after the second</extracomment>
        <translation>%1 끝 → %2</translation>
    </message>
    <message>
        <source>%1 [dense layers]</source>
        <extracomment>a tensor row made only for the dense first layers of a model such as DeepSeek-V3; %1 its name</extracomment>
        <translation>%1 [밀집 레이어]</translation>
    </message>
    <message>
        <source>%1 [MoE layers]</source>
        <extracomment>a tensor row made only for the mixture-of-experts layers; %1 its name</extracomment>
        <translation>%1 [MoE 레이어]</translation>
    </message>
</context>
<context>
    <name>Theme</name>
    <message>
        <source>The saved theme &quot;%1&quot; is unknown; using the system theme.</source>
        <translation>저장된 테마 &quot;%1&quot;을(를) 알 수 없어 시스템 테마를 씁니다.</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>테마(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;System</source>
        <translation>시스템(&amp;S)</translation>
    </message>
    <message>
        <source>The desktop&apos;s colors</source>
        <translation>데스크톱의 색상</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>밝게(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>어둡게(&amp;D)</translation>
    </message>
</context>
<context>
    <name>TimelineView</name>
    <message>
        <source>One training step, event by event</source>
        <translation>학습 한 스텝, 이벤트별</translation>
    </message>
    <message>
        <source>Prefill, then decode</source>
        <translation>프리필, 그다음 디코드</translation>
    </message>
    <message>
        <source>Peak: %1 · %2</source>
        <translation>피크: %1 · %2</translation>
    </message>
    <message>
        <source>forward →</source>
        <translation>순전파 →</translation>
    </message>
    <message>
        <source>prefill →</source>
        <translation>프리필 →</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>손실</translation>
    </message>
    <message>
        <source>← backward</source>
        <translation>← 역전파</translation>
    </message>
    <message>
        <source>step</source>
        <translation>스텝</translation>
    </message>
</context>
<context>
    <name>ValidateView</name>
    <message>
        <source>setting up</source>
        <translation>준비 중</translation>
    </message>
    <message>
        <source>warm-up</source>
        <translation>워밍업</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>순전파</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>손실</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>역전파</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>옵티마이저 스텝</translation>
    </message>
    <message>
        <source>done</source>
        <translation>완료</translation>
    </message>
    <message>
        <source>&amp;Engine:</source>
        <translation>엔진(&amp;E):</translation>
    </message>
    <message>
        <source>Automatic (CUDA when available)</source>
        <translation>자동 (가능하면 CUDA)</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA GPU</source>
        <translation>CUDA GPU</translation>
    </message>
    <message>
        <source>Which engine runs the step. The CPU engine measures the same tensors on the processor.</source>
        <translation>스텝을 실행할 엔진입니다. CPU 엔진은 같은 텐서를 프로세서에서 측정합니다.</translation>
    </message>
    <message>
        <source>&amp;Timeout:</source>
        <translation>제한 시간(&amp;T):</translation>
    </message>
    <message>
        <source> s</source>
        <extracomment>suffix of the timeout box: seconds</extracomment>
        <translation>초</translation>
    </message>
    <message>
        <source>A run that has not finished by then is stopped.</source>
        <translation>그때까지 끝나지 않은 실행은 중지됩니다.</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>실행(&amp;R)</translation>
    </message>
    <message>
        <source>Run one step of this scenario for real and measure its memory</source>
        <translation>이 시나리오의 스텝 하나를 실제로 실행하고 메모리를 측정합니다</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>취소(&amp;C)</translation>
    </message>
    <message>
        <source>CUDA: %1</source>
        <translation>CUDA: %1</translation>
    </message>
    <message>
        <source>No CUDA device / no CUDA engine in this build: the CPU engine runs the step instead.</source>
        <translation>CUDA 장치가 없거나 이 빌드에 CUDA 엔진이 없습니다: 대신 CPU 엔진이 스텝을 실행합니다.</translation>
    </message>
    <message>
        <source>Cannot start a validation run: the scenario could not be written to a temporary file.</source>
        <translation>검증 실행을 시작할 수 없습니다: 시나리오를 임시 파일에 쓸 수 없습니다.</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>시작하는 중…</translation>
    </message>
    <message>
        <source>Running one step in a separate process; the app stays usable and Cancel stops it.</source>
        <translation>별도 프로세스에서 스텝 하나를 실행하는 중입니다. 앱은 계속 쓸 수 있고, 취소를 누르면 멈춥니다.</translation>
    </message>
    <message>
        <source>step %1 of %2</source>
        <extracomment>progress bar: step 2 of 3</extracomment>
        <translation>스텝 %1/%2</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>취소됨</translation>
    </message>
    <message>
        <source>No result</source>
        <translation>결과 없음</translation>
    </message>
    <message>
        <source>Choose the CPU engine to run the step on the processor instead.</source>
        <translation>대신 프로세서에서 실행하려면 CPU 엔진을 고르세요.</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>%1을(를) 읽을 수 없습니다: %2</translation>
    </message>
    <message>
        <source>Stopped: out of memory</source>
        <translation>중지됨: 메모리 부족</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>완료</translation>
    </message>
    <message>
        <source>Measured: the step ran out of memory (%1). The planned peak is beside what was measured before it stopped.</source>
        <extracomment>%1 is the run&apos;s own words, e.g. &quot;out of memory at 71.3 GiB in backward of layer 12&quot;</extracomment>
        <translation>측정 결과: 스텝이 메모리 부족으로 멈췄습니다 (%1). 계획된 피크 옆에 멈추기 전까지 측정한 값을 보여 줍니다.</translation>
    </message>
    <message>
        <source>no details</source>
        <translation>자세한 내용 없음</translation>
    </message>
    <message>
        <source>Measured: the step ran to the end. Planned and measured memory below.</source>
        <translation>측정 결과: 스텝이 끝까지 실행되었습니다. 계획 메모리와 측정 메모리는 아래와 같습니다.</translation>
    </message>
    <message>
        <source>Engine: %1 on %2</source>
        <extracomment>%1 is the engine (cpu, cuda), %2 the device as the run names it</extracomment>
        <translation>엔진: %1 · 장치: %2</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>알 수 없음</translation>
    </message>
    <message>
        <source>an unnamed device</source>
        <translation>이름 없는 장치</translation>
    </message>
    <message>
        <source>Peak at %1 (planned) and %2 (measured)</source>
        <translation>피크 위치: %1 (계획), %2 (측정)</translation>
    </message>
    <message>
        <source>Step time: %1 s</source>
        <translation>스텝 시간: %1초</translation>
    </message>
    <message>
        <source>Tokens/s: %1</source>
        <translation>초당 토큰: %1</translation>
    </message>
    <message>
        <source>Extrapolated: the full model did not fit, so fewer layers were run and the per-layer measurement was scaled up.</source>
        <translation>외삽값: 전체 모델이 들어가지 않아 더 적은 레이어로 실행하고, 레이어당 측정값을 전체로 늘렸습니다.</translation>
    </message>
    <message>
        <source>The inputs have changed since this run; press Run to measure them.</source>
        <translation>이 실행 뒤에 입력이 바뀌었습니다. 바뀐 입력을 측정하려면 실행을 누르세요.</translation>
    </message>
    <message>
        <source>Device memory used: %1 measured, %2 planned (the peak plus %3 of CUDA context, cuBLAS workspace and kernel arena): %4</source>
        <extracomment>%1 measured bytes, %2 planned bytes, %3 the overheads included in %2, %4 the verdict of the check</extracomment>
        <translation>장치 메모리 사용량: 측정 %1, 계획 %2 (피크에 CUDA 컨텍스트, cuBLAS 작업 공간, 커널 영역 %3 포함): %4</translation>
    </message>
    <message>
        <source>within 2 % or 64 MiB</source>
        <translation>2 % 또는 64 MiB 이내</translation>
    </message>
    <message>
        <source>outside 2 % or 64 MiB</source>
        <translation>2 % 또는 64 MiB 초과</translation>
    </message>
</context>
<context>
    <name>ValidationCharts</name>
    <message>
        <source>Planned</source>
        <translation>계획</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>측정</translation>
    </message>
    <message>
        <source>No measurement yet: press Run</source>
        <translation>아직 측정값이 없습니다: 실행을 누르세요</translation>
    </message>
    <message>
        <source>The measured timeline appears here after a run</source>
        <translation>실행하면 측정된 타임라인이 여기에 나타납니다</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>차이</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>오차</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>측정 안 됨</translation>
    </message>
    <message>
        <source>At the peak, per category · labels: measured against planned</source>
        <translation>피크 시점의 범주별 메모리 · 라벨: 계획 대비 측정 오차</translation>
    </message>
    <message>
        <source>The run reported no categories</source>
        <translation>실행 결과에 범주가 없습니다</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation>피크</translation>
    </message>
    <message>
        <source>✕ out of memory: %1</source>
        <translation>✕ 메모리 부족: %1</translation>
    </message>
    <message>
        <source>Memory in use at each event of the step: measured over planned</source>
        <translation>스텝의 이벤트마다 사용 중인 메모리: 계획 위에 측정값</translation>
    </message>
    <message>
        <source>The run reported no events</source>
        <translation>실행 결과에 이벤트가 없습니다</translation>
    </message>
</context>
<context>
    <name>ValidationJson</name>
    <message>
        <source>the run printed no result</source>
        <translation>실행이 결과를 출력하지 않았습니다</translation>
    </message>
    <message>
        <source>the result is not valid JSON (%1 at offset %2)</source>
        <extracomment>%1 is the JSON parser&apos;s English description, %2 a character offset</extracomment>
        <translation>결과가 올바른 JSON이 아닙니다 (오프셋 %2에서 %1)</translation>
    </message>
    <message>
        <source>the result is not a JSON object</source>
        <translation>결과가 JSON 객체가 아닙니다</translation>
    </message>
    <message>
        <source>unexpected schema &quot;%1&quot; (expected %2)</source>
        <translation>예상하지 못한 스키마 &quot;%1&quot; (%2이어야 합니다)</translation>
    </message>
    <message>
        <source>unknown status &quot;%1&quot;</source>
        <translation>알 수 없는 상태 &quot;%1&quot;</translation>
    </message>
    <message>
        <source>missing or invalid %1</source>
        <extracomment>%1 is a JSON field name such as planned.peak_bytes</extracomment>
        <translation>%1이(가) 없거나 올바르지 않습니다</translation>
    </message>
</context>
<context>
    <name>ValidationRunner</name>
    <message>
        <source>this build has no CUDA engine</source>
        <translation>이 빌드에는 CUDA 엔진이 없습니다</translation>
    </message>
    <message>
        <source>no CUDA device was found</source>
        <translation>CUDA 장치를 찾지 못했습니다</translation>
    </message>
    <message>
        <source>Its last output:</source>
        <extracomment>followed by the last lines the validation command wrote</extracomment>
        <translation>마지막 출력:</translation>
    </message>
    <message>
        <source>Cannot start the validation command %1: %2. Validation needs headroom-cli next to the app.</source>
        <translation>검증 명령 %1을(를) 시작할 수 없습니다: %2. 검증하려면 앱과 같은 폴더에 headroom-cli가 있어야 합니다.</translation>
    </message>
    <message>
        <source>Validation cancelled: the run was stopped.</source>
        <translation>검증을 취소했습니다: 실행을 중지했습니다.</translation>
    </message>
    <message>
        <source>The validation run was stopped after %1 s without finishing. The app is unaffected; a longer timeout may help if the run was still making progress.</source>
        <translation>검증 실행이 %1초 동안 끝나지 않아 중지했습니다. 앱은 영향을 받지 않았습니다. 실행이 계속 진행 중이었다면 제한 시간을 늘려 보세요.</translation>
    </message>
    <message>
        <source>The validation run crashed (signal %1). The app is unaffected.</source>
        <translation>검증 실행이 비정상 종료되었습니다 (시그널 %1). 앱은 영향을 받지 않았습니다.</translation>
    </message>
    <message>
        <source>Validation is not available here: %1.</source>
        <translation>여기서는 검증할 수 없습니다: %1.</translation>
    </message>
    <message>
        <source>The validation command refused the scenario: %1</source>
        <translation>검증 명령이 시나리오를 거부했습니다: %1</translation>
    </message>
    <message>
        <source>The validation run crashed (exit status %1). The app is unaffected.</source>
        <translation>검증 실행이 비정상 종료되었습니다 (종료 상태 %1). 앱은 영향을 받지 않았습니다.</translation>
    </message>
    <message>
        <source>The validation run finished, but its result could not be read: %1.</source>
        <translation>검증 실행은 끝났지만 결과를 읽을 수 없습니다: %1.</translation>
    </message>
    <message>
        <source>The validation run reported an error: %1</source>
        <translation>검증 실행이 오류를 보고했습니다: %1</translation>
    </message>
</context>
<context>
    <name>VerdictBar</name>
    <message>
        <source>No plan</source>
        <translation>계획 없음</translation>
    </message>
    <message>
        <source>%1 · %2 parameters</source>
        <translation>%1 · 파라미터 %2</translation>
    </message>
    <message>
        <source> (%1 trainable)</source>
        <translation> (학습 %1)</translation>
    </message>
    <message>
        <source> · approximate, scaled from a size</source>
        <translation> · 크기로 추정한 근사 모델</translation>
    </message>
    <message>
        <source> · %1 × %2</source>
        <extracomment>GPU name × how many</extracomment>
        <translation> · %1 × %2</translation>
    </message>
    <message>
        <source> · profile %1</source>
        <translation> · 프로파일 %1</translation>
    </message>
    <message>
        <source>Fits, %1 to spare</source>
        <translation>들어갑니다, %1 여유</translation>
    </message>
    <message>
        <source>Out of memory by %1</source>
        <translation>메모리 부족 (OOM), %1 초과</translation>
    </message>
    <message>
        <source>GPU memory %1 minus device used %2</source>
        <translation>GPU 메모리 %1 − 디바이스 사용량 %2</translation>
    </message>
    <message>
        <source>Peak at %1 (event %2 of %3)</source>
        <translation>피크: %1 (이벤트 %3개 중 %2번째)</translation>
    </message>
    <message>
        <source>· assumptions: %1</source>
        <translation>· 가정: %1개</translation>
    </message>
    <message>
        <source>Peak allocated</source>
        <translation>최대 할당량</translation>
    </message>
    <message>
        <source>torch.cuda.max_memory_allocated(): the live tensors at the peak. Checked against PyTorch&apos;s own allocations in the reference scenarios (docs/validation/reference.md), counted without a GPU.</source>
        <translation>torch.cuda.max_memory_allocated(): 피크 시 살아 있는 텐서. 참조 시나리오에서 PyTorch 자체의 할당과 대조했습니다 (docs/validation/reference.md, GPU 없이 집계).</translation>
    </message>
    <message>
        <source>Peak reserved</source>
        <translation>최대 예약량</translation>
    </message>
    <message>
        <source>torch.cuda.max_memory_reserved(): the caching allocator&apos;s segments, rounding and fragmentation included. A simulation of PyTorch&apos;s allocator, checked against PyTorch&apos;s allocation traces replayed through it; not yet measured on a GPU.</source>
        <translation>torch.cuda.max_memory_reserved(): 캐싱 할당자의 세그먼트 (올림과 단편화 포함). PyTorch 할당자의 시뮬레이션으로, PyTorch의 할당 기록을 재생해 대조했으며 아직 GPU에서 측정하지 않았습니다.</translation>
    </message>
    <message>
        <source>Device used (nvidia-smi)</source>
        <translation>디바이스 사용량 (nvidia-smi)</translation>
    </message>
    <message>
        <source>Reserved + managed (paged) memory + CUDA context (%1, NCCL&apos;s buffers included where there are several GPUs): what nvidia-smi shows. The context was measured on Hopper GPUs (H200); on others it is an estimate, and NCCL&apos;s buffers are one measurement on A100s.</source>
        <translation>예약 메모리 + 관리(페이지) 메모리 + CUDA 컨텍스트(%1, GPU가 여러 장이면 NCCL 버퍼 포함): nvidia-smi가 보여 주는 값입니다. 컨텍스트는 Hopper GPU(H200)에서 측정했고, 다른 GPU에서는 추정치입니다. NCCL 버퍼는 A100에서 한 번 측정한 값입니다.</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>GPU memory planner for transformer training</source>
        <translation>트랜스포머 학습을 위한 GPU 메모리 계획 도구</translation>
    </message>
    <message>
        <source>Render the window to a PNG file and exit.</source>
        <translation>창을 PNG 파일로 렌더링하고 끝냅니다.</translation>
    </message>
    <message>
        <source>Open a scenario file (.headroom.json).</source>
        <translation>시나리오 파일(.headroom.json)을 엽니다.</translation>
    </message>
    <message>
        <source>Language: en or ko.</source>
        <translation>언어: en 또는 ko.</translation>
    </message>
    <message>
        <source>A scenario file to open (same as --scenario).</source>
        <translation>열 시나리오 파일 (--scenario와 같음).</translation>
    </message>
    <message>
        <source>give at most one scenario file</source>
        <translation>시나리오 파일은 하나만 주세요</translation>
    </message>
    <message>
        <source>unknown language &quot;%1&quot;: use en or ko</source>
        <translation>알 수 없는 언어 &quot;%1&quot;: en 또는 ko를 쓰세요</translation>
    </message>
    <message>
        <source>With --screenshot: show a saved `headroom-cli validate --json` result in the Validate view.</source>
        <translation>--screenshot과 함께: 저장된 `headroom-cli validate --json` 결과를 검증 보기에 표시합니다.</translation>
    </message>
    <message>
        <source>Theme for this session: system, light or dark.</source>
        <translation>이번 세션의 테마: system, light, dark.</translation>
    </message>
    <message>
        <source>unknown theme &quot;%1&quot;: use system, light or dark</source>
        <translation>알 수 없는 테마 &quot;%1&quot;: system, light, dark 중 하나를 쓰세요</translation>
    </message>
    <message>
        <source>View to show: breakdown, stages, timeline, ladder, sweep, validate, fit, compare or search.</source>
        <translation>보여 줄 보기: breakdown, stages, timeline, ladder, sweep, validate, fit, compare, search.</translation>
    </message>
    <message>
        <source>unknown view &quot;%1&quot;: use breakdown, stages, timeline, ladder, sweep, validate, fit, compare or search</source>
        <translation>알 수 없는 보기 &quot;%1&quot;: breakdown, stages, timeline, ladder, sweep, validate, fit, compare, search 중 하나를 쓰세요</translation>
    </message>
</context>
</TS>
